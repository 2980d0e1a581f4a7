import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { terraformAnalyzer } from './index';
import { cleanPlanText, planTextAction, planTextUnits } from './plan-text';
import { CORPUS } from '../../../../tests/corpus';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(rel, CORPUS)), 'utf8');
const TEXT_FILES = readdirSync(fileURLToPath(new URL('tfplan-text/', CORPUS))).filter((f) => f.endsWith('.txt'));
const ingest = (file: string) => terraformAnalyzer.ingest!(read(`tfplan-text/${file}`));

/** Expected [name, action, replace] per corpus file. */
const EXPECTED: Record<string, [string, string, boolean][]> = {
  'borchero-local-delete.txt': [
    ['local_file.test', 'destroy', false],
    ['local_file.test3', 'destroy', false],
  ],
  'borchero-terragrunt-multiplan.txt': [
    ['local_file.cache', 'create', false],
    ['local_file.database', 'create', false],
    ['local_file.server', 'create', false],
  ],
  'lifeomic-tf011-ansi-colors.txt': [
    ['data.external.ecr_image_digests', 'no-op', false],
    ['aws_ecs_service.sample_app', 'update', false],
    ['aws_ecs_task_definition.sample_app', 'update', true],
    ['null_resource.promote_images', 'update', true],
  ],
  'terraform-equivalence-fully-populated-complex-update.txt': [['tfcoremock_complex_resource.complex', 'update', false]],
};
EXPECTED['lifeomic-tf011-crlf-ansi.txt'] = EXPECTED['lifeomic-tf011-ansi-colors.txt'];

describe('terraform plan text: every corpus file', () => {
  it('has expectations for every corpus file', () => {
    expect(TEXT_FILES.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(TEXT_FILES)('%s → the expected resource blocks, clean bodies, stable hashes', (file) => {
    const units = ingest(file);
    expect(units.length).toBeGreaterThan(0);
    expect(units.map((u) => [u.name, u.action, u.metadata.replace])).toEqual(EXPECTED[file]);
    for (const unit of units) {
      expect(unit.body).not.toMatch(/\u001b|\r/);
      expect(unit.metadata.source).toBe('plan-text');
    }
    expect(new Set(units.map((u) => u.hash)).size).toBe(units.length);
    expect(ingest(file).map((u) => u.hash)).toEqual(units.map((u) => u.hash));
  });
});

describe('terraform plan text: specific inputs', () => {
  it('gives identical units for the CRLF and LF copies of the 0.11 plan', () => {
    expect(ingest('lifeomic-tf011-crlf-ansi.txt')).toEqual(ingest('lifeomic-tf011-ansi-colors.txt'));
  });

  it('keeps a 0.11 block as printed, attributes included', () => {
    const unit = ingest('lifeomic-tf011-ansi-colors.txt').find((u) => u.name === 'null_resource.promote_images')!;
    expect(unit.type).toBe('null_resource');
    expect(unit.body.split('\n')).toEqual([
      '-/+ null_resource.promote_images (new resource required)',
      '      id:                       "1236159896537553123" => <computed> (forces new resource)',
      '      triggers.%:               "1" => "1"',
      '      triggers.deploy_job_hash: "6c37ac7175bdf35e24a2f2755addd238" => "1a0bd86fc5831ee66858f2e159efa547" (forces new resource)',
    ]);
  });

  it('runs a modern block to its closing brace across blank lines and heredocs', () => {
    const [unit] = ingest('terraform-equivalence-fully-populated-complex-update.txt');
    const lines = unit.body.split('\n');
    expect(lines[0]).toBe('  # tfcoremock_complex_resource.complex will be updated in-place');
    expect(lines[1]).toBe('  ~ resource "tfcoremock_complex_resource" "complex" {');
    expect(lines.at(-1)).toBe('    }');
    expect(unit.body).toContain('        # (4 unchanged blocks hidden)');
    expect(unit.body).toContain('      + set_block {');
    expect(unit.body).not.toContain('Plan:');
  });

  it('keeps the "because" comment and Terraform\'s own sensitive mask', () => {
    const [unit] = ingest('borchero-local-delete.txt');
    expect(unit.body.split('\n').slice(0, 3)).toEqual([
      '  # local_file.test will be destroyed',
      '  # (because local_file.test is not in configuration)',
      '  - resource "local_file" "test" {',
    ]);
    expect(unit.body).toContain('- content              = (sensitive value) -> null');
    expect(unit.body.split('\n').at(-1)).toBe('    }');
  });

  it('numbers the plans of a terragrunt multi-plan file', () => {
    expect(ingest('borchero-terragrunt-multiplan.txt').map((u) => u.metadata.plan_index)).toEqual([0, 1, 2]);
  });

  it('handles module addresses, deposed objects and drift sections', () => {
    const text = [
      'Note: Objects have changed outside of Terraform',
      '',
      '  # aws_s3_bucket.drifted has changed',
      '  ~ resource "aws_s3_bucket" "drifted" {',
      '    }',
      '',
      'Terraform will perform the following actions:',
      '',
      '  # module.net["a.b"].aws_security_group.sg will be updated in-place',
      '  ~ resource "aws_security_group" "sg" {',
      '      ~ ingress = []',
      '    }',
      '',
      '  # aws_instance.web (deposed object 1a2b3c4d) will be destroyed',
      '  - resource "aws_instance" "web" {',
      '      - ami = "ami-1" -> null',
      '    }',
      '',
      'Plan: 0 to add, 1 to change, 1 to destroy.',
    ].join('\n');
    const units = planTextUnits(text, 'terraform');
    expect(units.map((u) => [u.name, u.type, u.action])).toEqual([
      ['module.net["a.b"].aws_security_group.sg', 'aws_security_group', 'update'],
      ['aws_instance.web (deposed object 1a2b3c4d)', 'aws_instance', 'destroy'],
    ]);
    expect(units[0].metadata.module_address).toBe('module.net["a.b"]');
    expect(units[1].metadata.deposed).toBe('1a2b3c4d');
  });

  it('maps header phrases and 0.11 symbols to actions', () => {
    expect(planTextAction('will be created').action).toBe('create');
    expect(planTextAction('is tainted, so must be replaced')).toEqual({ action: 'update', replace: true });
    expect(planTextAction('will be read during apply').action).toBe('no-op');
    expect(planTextAction('+/-')).toEqual({ action: 'update', replace: true });
    expect(planTextAction('-').action).toBe('destroy');
  });

  it('strips ANSI codes and CR', () => {
    expect(cleanPlanText('\u001b[0m\u001b[1mPlan:\u001b[0m 1 to add\r\n')).toBe('Plan: 1 to add\n');
  });
});
