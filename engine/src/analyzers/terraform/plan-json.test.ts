import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { terraformAnalyzer } from './index';
import { extractPlanJson, mapPlanActions, planJsonUnits } from './plan-json';
import { CORPUS } from '../../../../tests/corpus';

const bytes = (rel: string): Buffer => readFileSync(fileURLToPath(new URL(rel, CORPUS)));
const PLAN_FILES = readdirSync(fileURLToPath(new URL('tfplan-json/', CORPUS))).filter((f) => f.endsWith('.json'));

type Json = Record<string, any>;

/** Parses a corpus plan without the code under test: BOM/UTF-16 by hand, wrapper noise by line. */
function independentPlan(file: string): Json {
  const raw = bytes(`tfplan-json/${file}`);
  const text = raw[0] === 0xff && raw[1] === 0xfe ? raw.subarray(2).toString('utf16le') : raw.toString('utf8');
  try {
    return JSON.parse(text) as Json;
  } catch {
    const line = text.split('\n').find((l) => l.startsWith('{"format_version"'))!;
    return JSON.parse(line) as Json;
  }
}

// The analyzer receives a string; for the UTF-16 file this is the mis-decoded UTF-8 string a
// naive server would produce, which ingest() must repair.
const ingestFile = (file: string) => terraformAnalyzer.ingest!(bytes(`tfplan-json/${file}`).toString('utf8'));

/** Every leaf value marked sensitive in before/after (strings and numbers only). */
function sensitiveLeaves(value: unknown, mask: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined) return out;
  if (mask === true) {
    const walk = (v: unknown): void => {
      if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(value);
  } else if (Array.isArray(mask) && Array.isArray(value)) {
    for (const [i, m] of mask.entries()) sensitiveLeaves(value[i], m, out);
  } else if (mask && typeof mask === 'object' && value && typeof value === 'object') {
    for (const [k, m] of Object.entries(mask)) sensitiveLeaves((value as Json)[k], m, out);
  }
  return out;
}

describe('terraform plan JSON: every corpus plan', () => {
  it.each(PLAN_FILES)('%s → one unit per resource_changes entry, stable and distinct hashes', (file) => {
    const plan = independentPlan(file);
    const changes = (plan.resource_changes ?? []) as Json[];
    const units = ingestFile(file);
    expect(units).toHaveLength(changes.length);
    expect(units.map((u) => u.name)).toEqual(changes.map((c) => c.address));
    expect(new Set(units.map((u) => u.hash)).size).toBe(units.length);
    expect(ingestFile(file).map((u) => u.hash)).toEqual(units.map((u) => u.hash));
    for (const [i, unit] of units.entries()) {
      expect(unit.type).toBe(changes[i].type);
      expect(unit.metadata).toMatchObject({ source: 'plan-json', address: changes[i].address, actions: changes[i].change.actions });
      expect(unit.body.startsWith(`# ${changes[i].address} `)).toBe(true);
    }
  });

  it.each(PLAN_FILES)('%s → no sensitive value appears in any unit', (file) => {
    const plan = independentPlan(file);
    const secrets = ((plan.resource_changes ?? []) as Json[]).flatMap((c) => [
      ...sensitiveLeaves(c.change.before, c.change.before_sensitive),
      ...sensitiveLeaves(c.change.after, c.change.after_sensitive),
      ...sensitiveLeaves(c.change.before, c.change.after_sensitive),
    ]);
    const text = ingestFile(file)
      .map((u) => `${u.body}\n${JSON.stringify(u.metadata)}\n${u.name}\n${u.type}`)
      .join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

describe('terraform plan JSON: specific inputs', () => {
  it('masks the sensitive value of terraform-showjson-sensitive-values.json', () => {
    const plan = independentPlan('terraform-showjson-sensitive-values.json');
    const secrets = sensitiveLeaves(plan.resource_changes[0].change.after, plan.resource_changes[0].change.after_sensitive);
    expect(secrets).toEqual(['boop']);
    const [unit] = ingestFile('terraform-showjson-sensitive-values.json');
    expect(unit.body).toContain('+ ami = (sensitive value)');
    expect(unit.body).toContain('+ id = (known after apply)');
    expect(unit.body).not.toContain('boop');
  });

  it('reads the UTF-16LE Windows plan (bytes mis-decoded upstream are repaired)', () => {
    const units = ingestFile('checkov-aws-utf16le-bom-windows.json');
    expect(units.map((u) => [u.name, u.action])).toEqual([['aws_s3_bucket.data', 'create']]);
  });

  it('finds the plan inside setup-terraform wrapper noise', () => {
    const units = ingestFile('infracost-setup-terraform-wrapper-noise.json');
    expect(units.map((u) => u.name)).toEqual(['aws_instance.web_app', 'aws_lambda_function.hello_world']);
  });

  it('maps create+delete to a replacement (update, replace=true)', () => {
    const [unit] = ingestFile('checkov-aws-replace-create-delete.json');
    expect(unit.action).toBe('update');
    expect(unit.metadata.replace).toBe(true);
    expect(unit.body).toContain('must be replaced (create before destroy)');
    expect(unit.body).toContain('+/- resource "aws_secretsmanager_secret" "default" {');
  });

  it('renders an update as a diff and a delete with its reason', () => {
    const [update, destroy] = ingestFile('terraform-showjson-basic-delete.json');
    expect(update.body.split('\n')).toEqual([
      '# test_instance.test will be updated in-place',
      '# provider: registry.terraform.io/hashicorp/test',
      '~ resource "test_instance" "test" {',
      '    ~ ami = "foo" -> "bar"',
      '      id = "placeholder"',
      '  }',
    ]);
    expect(destroy.action).toBe('destroy');
    expect(destroy.metadata.action_reason).toBe('delete_because_no_resource_config');
    expect(destroy.body).toContain('# reason: delete_because_no_resource_config');
  });

  it('keeps module addresses and data reads (no-op) with module metadata', () => {
    const units = ingestFile('checkov-aws-github-oidc-iam-modules.json');
    const read = units.find((u) => u.name === 'module.poc.data.aws_iam_policy_document.r4["p1"]')!;
    expect(read.action).toBe('no-op');
    expect(read.metadata).toMatchObject({ mode: 'data', module_address: 'module.poc', action_reason: 'read_because_dependency_pending' });
    expect(read.body).toContain('<= data "aws_iam_policy_document" "r4" {');
    const role = units.find((u) => u.name === 'module.poc.aws_iam_role.r1["p1"]')!;
    expect(role.body).toContain('+ policy = jsonencode(');
  });

  it('counts no-op resources of the large module plan', () => {
    const units = ingestFile('infracost-aws-modules-tf014-large.json');
    const count = (a: string): number => units.filter((u) => u.action === a).length;
    expect([count('no-op'), count('create'), count('update')]).toEqual([13, 12, 1]);
    expect(units.some((u) => u.name === 'module.db.module.db_1.module.db_instance.aws_db_instance.this[0]')).toBe(true);
  });

  it('keeps deposed objects distinct from the current object', () => {
    const plan = independentPlan('terraform-showjson-basic-delete.json');
    const current = plan.resource_changes[1];
    const deposed = { ...current, deposed: '4c2f1a0b', change: { ...current.change, actions: ['delete'] } };
    const units = planJsonUnits({ ...plan, resource_changes: [...plan.resource_changes, deposed] }, 'terraform');
    expect(units).toHaveLength(3);
    expect(units[2].name).toBe('test_instance.test-delete (deposed object 4c2f1a0b)');
    expect(units[2].metadata.deposed).toBe('4c2f1a0b');
    expect(units[2].body.split('\n')[0]).toBe('# test_instance.test-delete (deposed object 4c2f1a0b) will be destroyed');
    expect(new Set(units.map((u) => u.hash)).size).toBe(3);
  });

  it('masks nested sensitive values on both sides of an update, even when only one side marks them', () => {
    const plan = {
      format_version: '1.2',
      resource_changes: [
        {
          address: 'aws_db_instance.db',
          mode: 'managed',
          type: 'aws_db_instance',
          name: 'db',
          change: {
            actions: ['update'],
            before: { password: 'old-Secret-1', users: [{ name: 'a', token: 'tok-Secret-2' }], tags: { env: 'dev' } },
            after: { password: 'new-Secret-3', users: [{ name: 'a', token: 'tok-Secret-2' }], tags: { env: 'prod' } },
            before_sensitive: false,
            after_sensitive: { password: true, users: [{ token: true }], tags: {} },
            after_unknown: {},
          },
        },
      ],
    };
    const [unit] = planJsonUnits(plan, 'terraform');
    for (const secret of ['old-Secret-1', 'tok-Secret-2', 'new-Secret-3']) expect(unit.body).not.toContain(secret);
    expect(unit.body).toContain('~ password = (sensitive value)');
    expect(unit.body).toContain('token = (sensitive value)');
    expect(unit.body).toContain('~ env = "dev" -> "prod"');
  });

  it('maps every JSON-plan action list', () => {
    expect(mapPlanActions(['create'])).toEqual({ action: 'create', replace: false });
    expect(mapPlanActions(['update'])).toEqual({ action: 'update', replace: false });
    expect(mapPlanActions(['delete'])).toEqual({ action: 'destroy', replace: false });
    expect(mapPlanActions(['no-op'])).toEqual({ action: 'no-op', replace: false });
    expect(mapPlanActions(['read'])).toEqual({ action: 'no-op', replace: false });
    expect(mapPlanActions(['delete', 'create'])).toEqual({ action: 'update', replace: true });
    expect(mapPlanActions(['create', 'delete'])).toEqual({ action: 'update', replace: true });
  });
});

describe('terraform plan JSON: bad input', () => {
  const text = bytes('tfplan-json/terraform-showjson-drift.json').toString('utf8');

  it('rejects truncated plan JSON', () => {
    expect(() => terraformAnalyzer.ingest!(text.slice(0, Math.floor(text.length / 2)))).toThrow(ValidationError);
    expect(() => extractPlanJson(text.slice(0, 40))).toThrow(ValidationError);
  });

  it('rejects Terraform state JSON with a precise message', () => {
    expect(() => extractPlanJson('{"format_version":"1.0","values":{"root_module":{}}}')).toThrow(/state, not a plan/);
  });

  it('rejects a malformed resource_changes entry', () => {
    expect(() => planJsonUnits({ format_version: '1.0', resource_changes: [{ address: 'x.y' }] }, 'terraform')).toThrow(ValidationError);
  });
});

describe('masks longer than their values', () => {
  it('renders the extra unknown entries as known after apply instead of failing', () => {
    const plan = {
      format_version: '1.2',
      resource_changes: [
        {
          address: 'aws_instance.x',
          type: 'aws_instance',
          name: 'x',
          mode: 'managed',
          change: {
            actions: ['create'],
            before: null,
            after: { tags: ['a'] },
            after_unknown: { tags: [false, { deep: [true, true] }, true] },
            before_sensitive: false,
            after_sensitive: {},
          },
        },
      ],
    };
    const [unit] = terraformAnalyzer.ingest!(JSON.stringify(plan));
    expect(unit.body).toContain('+ "a",');
    expect(unit.body.match(/\(known after apply\)/g)).toHaveLength(3);
  });
});
