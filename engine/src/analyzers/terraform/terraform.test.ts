import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { parseUnifiedDiff } from '../../core/diff';
import { terraformAnalyzer } from './index';
import { CORPUS } from '../../../../tests/corpus';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(rel, CORPUS)), 'utf8');

describe('terraform analyzer: descriptor', () => {
  it('declares name, version, globs and rule variants', () => {
    expect(terraformAnalyzer).toMatchObject({ name: 'terraform', version: '1.0.0', defaultRuleVariant: 'default' });
    expect(terraformAnalyzer.ruleVariants).toEqual(['default', 'aws', 'azure', 'gcp']);
    expect(terraformAnalyzer.isFallback).toBeFalsy();
  });
});

describe('terraform analyzer: sniff', () => {
  it.each([
    ['tfplan-json/infracost-azure-firewall.json', 'terraform-plan-json'],
    ['tfplan-json/infracost-setup-terraform-wrapper-noise.json', 'terraform-plan-json'],
    ['tfplan-text/lifeomic-tf011-crlf-ansi.txt', 'terraform-plan-text'],
    ['tfplan-text/borchero-terragrunt-multiplan.txt', 'terraform-plan-text'],
  ])('%s → %s', (rel, kind) => {
    expect(terraformAnalyzer.sniff!(read(rel))?.kind).toBe(kind);
  });

  it('recognises HCL and nothing else in the corpus', () => {
    expect(terraformAnalyzer.sniff!('resource "aws_s3_bucket" "b" {\n}\n')).toEqual({ kind: 'terraform-hcl', confidence: 0.8 });
    for (const rel of [
      'k8s-yaml/k8s-examples-guestbook-all-in-one.yaml',
      'dockerfile/atlantis.Dockerfile',
      'cfn-template/awslabs-static-website-s3buckets.json',
      'gha-workflow/atlantis-image-build-push.yml',
    ]) {
      expect(terraformAnalyzer.sniff!(read(rel))).toBeNull();
    }
  });
});

describe('terraform analyzer: ingest of configuration and bad input', () => {
  it('splits a configuration file into blocks (action create)', () => {
    const text = 'terraform {\n  required_version = ">= 1.0"\n}\n\nresource "aws_s3_bucket" "b" {\n  bucket = "x"\n}\n';
    const units = terraformAnalyzer.ingest!(text, { path: 'main.tf' });
    expect(units.map((u) => [u.name, u.action])).toEqual([
      ['terraform', 'create'],
      ['aws_s3_bucket.b', 'create'],
    ]);
    expect(units[1].body).toBe('# file: main.tf\nresource "aws_s3_bucket" "b" {\n  bucket = "x"\n}');
  });

  it.each([
    ['random text', 'the quick brown fox jumps over the lazy dog'],
    ['a Kubernetes manifest', read('k8s-yaml/k8s-examples-minio-standalone-latest.yaml')],
    ['a CloudFormation JSON template', read('cfn-template/awslabs-static-website-s3buckets.json')],
    ['truncated JSON', '{"format_version":"1.1","terraform_version":"1.5'],
    ['a truncated corpus plan', read('tfplan-json/tfcompliance-aws-deletes-drift-issue522.json').slice(0, 30_000)],
    ['an empty body', '  \n'],
  ])('rejects %s with ValidationError', (_label, text) => {
    expect(() => terraformAnalyzer.ingest!(text)).toThrow(ValidationError);
  });

  it('gives a ValidationError with a helpful message', () => {
    expect(() => terraformAnalyzer.ingest!('hello')).toThrow(/expected plan JSON/);
  });
});

describe('terraform analyzer: non-HCL files in diffs', () => {
  it('ingests an added plan JSON file whole and diffs a modified one as one unit', () => {
    const plan = read('tfplan-json/terraform-showjson-basic-delete.json').replace(/\n$/, '').split('\n');
    const added = [
      'diff --git a/tfplan.json b/tfplan.json',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/tfplan.json',
      `@@ -0,0 +1,${plan.length} @@`,
      ...plan.map((l) => `+${l}`),
      '',
    ].join('\n');
    expect(terraformAnalyzer.ingestDiffFile!(parseUnifiedDiff(added)[0]).map((u) => u.name)).toEqual(['test_instance.test', 'test_instance.test-delete']);
    const modified = ['diff --git a/x.tf.json b/x.tf.json', '--- a/x.tf.json', '+++ b/x.tf.json', '@@ -1 +1 @@', '-{}', '+{"resource": {}}', ''].join('\n');
    const units = terraformAnalyzer.ingestDiffFile!(parseUnifiedDiff(modified)[0]);
    expect(units.map((u) => [u.name, u.type, u.action])).toEqual([['x.tf.json', 'terraform_file', 'update']]);
  });
});
