/**
 * Checks on configuration (hcl-values.ts): a `.tf` block carries values in a plan unit's shape,
 * so a rule's check fires on the `.tf` as on the plan, and an expression (`var.x`) never fails a
 * check. The equivalence run renders every resource of the corpus and synthetic plans back into
 * a `.tf` block (known values as literals, unknown ones as a reference) and compares the checks'
 * findings on both; it prints the counts and fails on a finding the plan does not have.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusFile, corpusFiles } from '../../../../tests/corpus';
import { runChecks } from '../../checks/run-checks';
import type { AnalysisUnit } from '../../core/unit';
import { loadBuiltinRuleset, parseRules } from '../../rules/ruleset';
import { selectRules } from '../../rules/select';
import { terraformAnalyzer, terraformRuleVariantFor } from './index';
import { hclFileUnits } from './hcl-file';
import { terraformDiffUnits } from './diff-blocks';
import { parseUnifiedDiff } from '../../core/diff';

const SYNTHETIC = new URL('../../../../tests/fixtures/eval/synthetic/', import.meta.url);

function fired(unit: AnalysisUnit): string[] {
  const variant = terraformRuleVariantFor(unit) ?? 'default';
  return runChecks(selectRules(loadBuiltinRuleset('terraform', variant), unit).rules, unit)
    .map((m) => m.rule.rule_id)
    .sort();
}

function tfUnit(source: string): AnalysisUnit {
  const units = hclFileUnits(source, 'main.tf', 'terraform');
  expect(units).toHaveLength(1);
  return units[0];
}

const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A plan value as an HCL expression: unknown → a reference, sensitive → its marker text. */
function hclExpr(value: unknown, indent: string): string {
  if (value === '(known after apply)') return 'var.unknown';
  if (typeof value === 'string') return JSON.stringify(value).replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => hclExpr(v, indent)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const inner = `${indent}  `;
    const rows = Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${inner}${IDENT_RE.test(k) ? k : JSON.stringify(k)} = ${hclExpr(v, inner)}`);
    return rows.length === 0 ? '{}' : `{\n${rows.join('\n')}\n${indent}}`;
  }
  return 'null';
}

/** The `.tf` block a plan unit's values stand for: null and empty-list attributes left out (unset). */
function tfFor(unit: AnalysisUnit): string {
  const [type] = unit.type.split('.');
  const values = unit.metadata.values as Record<string, unknown>;
  const rows = Object.entries(values)
    .filter(
      ([k, v]) =>
        v !== null && !(Array.isArray(v) && v.length === 0) && IDENT_RE.test(k) && !['count', 'for_each', 'provider', 'lifecycle', 'depends_on'].includes(k),
    )
    .map(([k, v]) => `  ${k} = ${hclExpr(v, '  ')}`);
  return `resource "${type}" "r" {\n${rows.join('\n')}\n}\n`;
}

describe('checks on Terraform configuration (.tf) values', () => {
  it('gives a .tf resource block the values of its literals; references and expressions are unknown', () => {
    const unit = tfUnit(`resource "aws_security_group" "bastion" {
  name  = "bastion"
  count = var.enabled ? 1 : 0
  ingress {
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0", var.office]
  }
  dynamic "egress" {
    for_each = var.egress
    content {}
  }
  tags = { Name = "bastion-\${var.env}" }
}
`);
    expect(unit.metadata.values).toEqual({
      name: 'bastion',
      ingress: [{ from_port: 22, to_port: 22, protocol: 'tcp', cidr_blocks: ['0.0.0.0/0', '(known after apply)'] }],
      egress: '(known after apply)',
      tags: { Name: '(known after apply)' },
    });
  });

  it('an open security group in a .tf fires the same rule as in the plan', () => {
    const plan = terraformAnalyzer.ingest!(readFileSync(new URL('tf-companions-plan.json', SYNTHETIC), 'utf8'));
    const onPlan = fired(plan.find((u) => u.name === 'aws_security_group.bastion')!);
    const tf = tfUnit(`resource "aws_security_group" "bastion" {
  name = "bastion"
  ingress {
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}
`);
    expect(onPlan).toContain('TF-AWS-SG-ADMIN-PORTS-OPEN');
    expect(fired(tf)).toEqual(onPlan);
  });

  it('a value given as var.x or an expression is no finding', () => {
    const tf = tfUnit(`resource "aws_security_group" "bastion" {
  name = "bastion"
  ingress {
    description = "SSH from the admins"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = var.admin_cidrs
  }
}
`);
    expect(fired(tf)).toEqual([]);
    const rds = tfUnit(`resource "aws_db_instance" "db" {
  publicly_accessible = var.public
  storage_encrypted   = local.encrypted
  deletion_protection = var.protect
}
`);
    expect(fired(rds).filter((id) => id.includes('PUBLIC') || id.includes('ENCRYPT'))).toEqual([]);
  });

  it('gives no values to a data source: it reads an object the configuration does not create', () => {
    const [data] = hclFileUnits('data "aws_s3_bucket" "logs" {\n  bucket = "acme-logs"\n}\n', 'main.tf', 'terraform');
    expect(data.type).toBe('aws_s3_bucket');
    expect(data.metadata.values).toBeUndefined();
    expect(fired(data)).toEqual([]);
  });

  it('never holds a credential literal in values: it is the sensitive marker, as in a plan', () => {
    const tf = tfUnit(`resource "aws_db_instance" "db" {
  password = "Sup3rS3cretPassw0rd"
}
`);
    expect(JSON.stringify(tf.metadata)).not.toContain('Sup3rS3cret');
    expect(tf.metadata.values).toEqual({ password: '(sensitive value)' });
  });

  it('gives values to a whole block of a diff (its post-image), none to a block the hunks show in part', () => {
    const diff = `diff --git a/main.tf b/main.tf
--- a/main.tf
+++ b/main.tf
@@ -1,6 +1,6 @@
 resource "aws_db_instance" "db" {
-  publicly_accessible = false
+  publicly_accessible = true
   engine              = "postgres"
 }
 
 resource "aws_s3_bucket" "b" {
@@ -40,3 +40,3 @@ resource "aws_s3_bucket" "b" {
   bucket = "x"
-  acl    = "private"
+  acl    = "public-read"
`;
    const [file] = parseUnifiedDiff(diff);
    const units = terraformDiffUnits(file, 'terraform');
    const db = units.find((u) => u.name === 'aws_db_instance.db')!;
    expect(db.action).toBe('update');
    expect(db.metadata.values).toEqual({ publicly_accessible: true, engine: 'postgres' });
    expect(fired(db)).toContain('TF-AWS-DB-PUBLICLY-ACCESSIBLE');
    const bucket = units.find((u) => u.name === 'aws_s3_bucket.b')!;
    expect(bucket.metadata.values).toBeUndefined();
  });

  it('on the .tf equivalents of the corpus and synthetic plans, finds nothing the plan does not (prints the counts)', () => {
    const plans = [
      ...corpusFiles('tfplan-json', '.json').map((f) => corpusFile(f).toString('utf8')),
      ...['tf-companions-plan.json', 'tf-network-compute-plan.json'].map((f) => readFileSync(new URL(f, SYNTHETIC), 'utf8')),
    ];
    const rules = ['default', 'aws', 'azure', 'gcp'].flatMap((v) => parseRules(loadBuiltinRuleset('terraform', v)));
    const checks = new Set(rules.filter((r) => r.check !== null).map((r) => r.rule_id));
    const onValues = new Set(rules.filter((r) => r.check !== null && !/\bcompanions\b/.test(r.check)).map((r) => r.rule_id));
    let units = 0;
    let planFindings = 0;
    let tfFindings = 0;
    const both = new Set<string>();
    const extra: string[] = [];
    const missed: string[] = [];
    for (const text of plans) {
      for (const unit of terraformAnalyzer.ingest!(text)) {
        if (unit.action === 'destroy' || unit.metadata.values === undefined || unit.metadata.values === null) continue;
        const tf = hclFileUnits(tfFor(unit), 'main.tf', 'terraform')[0];
        if (tf?.metadata.values === undefined) continue;
        units += 1;
        const onPlan = fired(unit).filter((id) => onValues.has(id));
        const onTf = fired(tf);
        planFindings += onPlan.length;
        tfFindings += onTf.filter((id) => onPlan.includes(id)).length;
        for (const id of onTf) if (onPlan.includes(id)) both.add(id);
        for (const id of onTf) if (!onPlan.includes(id)) extra.push(`${unit.name}: ${id}`);
        for (const id of onPlan) if (!onTf.includes(id)) missed.push(`${unit.name}: ${id}`);
      }
    }
    console.log(
      `Terraform checks: ${checks.size}; run on .tf units (read no companions): ${onValues.size}. ` +
        `.tf equivalents of ${units} plan units: ${tfFindings} of ${planFindings} plan findings also found; rules fired on both: ${both.size}; found on the plan only (a default or an unknown the plan knows): ${missed.join(', ')}`,
    );
    expect(onValues.size).toBeGreaterThanOrEqual(70);
    expect(extra).toEqual([]);
  });
});
