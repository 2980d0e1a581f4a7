import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { imageText, looksLikeUnifiedDiff, parseUnifiedDiff, renderHunks } from './diff';
import { CORPUS } from '../../../tests/corpus';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(rel, CORPUS)), 'utf8');
const diffs = ['diff-tf', 'diff-mixed'].flatMap((dir) =>
  readdirSync(fileURLToPath(new URL(`${dir}/`, CORPUS)))
    .filter((f) => f.endsWith('.diff'))
    .map((f) => `${dir}/${f}`),
);

describe('looksLikeUnifiedDiff', () => {
  it.each(diffs)('recognises %s', (rel) => {
    expect(looksLikeUnifiedDiff(read(rel))).toBe(true);
  });

  it('recognises a plain `diff -u` without a git header', () => {
    expect(looksLikeUnifiedDiff('--- a.tf\t2024-01-01\n+++ b.tf\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n')).toBe(true);
  });

  it('rejects plan text, plan JSON and HCL', () => {
    expect(looksLikeUnifiedDiff(read('tfplan-text/borchero-local-delete.txt'))).toBe(false);
    expect(looksLikeUnifiedDiff(read('tfplan-json/terraform-showjson-basic-delete.json'))).toBe(false);
    expect(looksLikeUnifiedDiff('resource "aws_s3_bucket" "b" {\n  bucket = "x"\n}\n')).toBe(false);
  });
});

describe('parseUnifiedDiff', () => {
  it.each(diffs)('gives one DiffFile per `diff --git` section of %s', (rel) => {
    const text = read(rel);
    const sections = text.split('\n').filter((l) => l.startsWith('diff --git ')).length;
    expect(parseUnifiedDiff(text)).toHaveLength(sections);
  });

  it('maps paths, statuses, headings and line numbers', () => {
    const files = parseUnifiedDiff(read('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff'));
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ['examples/karpenter/README.md', 'modified'],
      ['examples/karpenter/inflate.yaml', 'added'],
      ['examples/karpenter/karpenter.yaml', 'added'],
      ['examples/karpenter/main.tf', 'modified'],
      ['examples/karpenter/versions.tf', 'modified'],
    ]);
    const main = files[3];
    expect(main.hunks[0].header).toBe('provider "helm" {');
    expect(main.hunks[0].newStart).toBe(21);
    const removed = main.hunks[0].lines.find((l) => l.marker === '-')!;
    expect(removed).toEqual({ marker: '-', text: 'provider "kubectl" {', newLine: null, oldLine: 24 });
    expect(imageText(files[1], 'new').split('\n')[0]).toBe('apiVersion: apps/v1');
  });

  it('handles deletions, renames, "no newline" markers and CRLF', () => {
    const text = [
      'diff --git a/old.tf b/new.tf',
      'similarity index 90%',
      'rename from old.tf',
      'rename to new.tf',
      '--- a/old.tf',
      '+++ b/new.tf',
      '@@ -1,2 +1,2 @@ locals {',
      ' a = 1\r',
      '-b = 2',
      '+b = 3',
      '\\ No newline at end of file',
      'diff --git a/gone.tf b/gone.tf',
      'deleted file mode 100644',
      '--- a/gone.tf',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-x = 1',
      '',
    ].join('\n');
    const [renamed, deleted] = parseUnifiedDiff(text);
    expect(renamed).toMatchObject({ path: 'new.tf', oldPath: 'old.tf', status: 'renamed' });
    expect(renamed.hunks[0].lines.map((l) => `${l.marker}${l.text}`)).toEqual([' a = 1', '-b = 2', '+b = 3']);
    expect(deleted).toMatchObject({ path: 'gone.tf', status: 'deleted' });
    expect(imageText(deleted, 'old')).toBe('x = 1');
  });

  it('throws ValidationError when there is no file section', () => {
    expect(() => parseUnifiedDiff('just some text')).toThrow(ValidationError);
  });
});

describe('renderHunks', () => {
  it('renders @@ headers and marked lines', () => {
    const [file] = parseUnifiedDiff(read('diff-tf/tf-aws-s3-bucket-9e8dd5e-waf-log-policy-region.diff'));
    const text = renderHunks(file.hunks);
    expect(text.split('\n')[0]).toBe('@@ -910,7 +910,7 @@ data "aws_iam_policy_document" "waf_log_delivery" {');
    expect(text).toContain('+      values   = ["arn:${data.aws_partition.current.partition}:logs:*:${data.aws_caller_identity.current.id}:*"]');
  });
});
