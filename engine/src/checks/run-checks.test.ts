import { describe, expect, it } from 'vitest';
import { terraformAnalyzer } from '../analyzers/terraform/index';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules } from '../rules/ruleset';
import { selectRules } from '../rules/select';
import { corpusFile } from '../../../tests/corpus';
import { compileCheck, factsText, runChecks } from './run-checks';
import { deterministicPayload, mergeFindings } from './merge';
import { planJsonUnits } from '../analyzers/terraform/plan-json';

const planUnits = (file: string) => terraformAnalyzer.ingest!(corpusFile(`tfplan-json/${file}`).toString('utf8'));
const rulesFor = (unit: ReturnType<typeof planUnits>[number]) =>
  selectRules(loadBuiltinRuleset('terraform', terraformAnalyzer.ruleVariantFor!(unit) ?? 'default'), unit).rules;

describe('deterministic checks', () => {
  it('every shipped `Check (CEL):` expression parses', () => {
    const checks = ['terraform', 'dockerfile', 'github-actions', 'kubernetes', 'cloudformation']
      .flatMap((a) => listBuiltinRuleVariants(a).flatMap((v) => parseRules(loadBuiltinRuleset(a, v))))
      .filter((r) => r.check !== null);
    expect(checks.length).toBeGreaterThanOrEqual(15);
    for (const rule of checks) expect(compileCheck(rule.check!), rule.rule_id).not.toBeInstanceOf(Error);
  });

  it('finds the plain-text RDS password and the unencrypted storage of the TF 0.14 plan, with evidence lines of the body', () => {
    const db = planUnits('infracost-aws-modules-tf014-large.json').find((u) => u.type === 'aws_db_instance')!;
    const matches = runChecks(rulesFor(db), db);
    expect(matches.map((m) => m.rule.rule_id)).toEqual(expect.arrayContaining(['TF-GEN-SECRET-PLAINTEXT', 'TF-AWS-DB-ENCRYPTION-OFF']));
    const bodyLines = new Set(db.body.split('\n').map((l) => l.trim()));
    for (const m of matches) {
      expect(m.evidence.length).toBeGreaterThan(0);
      for (const line of m.evidence) expect(bodyLines.has(line)).toBe(true);
    }
    expect(matches.find((m) => m.rule.rule_id === 'TF-GEN-SECRET-PLAINTEXT')!.evidence[0]).toMatch(/password = \(sensitive value\)$/);
    expect(factsText(matches)).toContain('TF-GEN-SECRET-PLAINTEXT');
  });

  it('Azure Firewall threat intelligence left on Alert is a HIGH-confidence finding without a model', () => {
    const fw = planUnits('infracost-azure-firewall.json').find((u) => u.type === 'azurerm_firewall')!;
    const matches = runChecks(rulesFor(fw), fw);
    const payload = deterministicPayload(matches, fw, 1);
    expect(payload.findings).toEqual([
      expect.objectContaining({ rule_id: 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF', confidence: 'HIGH', evidence: ['+ threat_intel_mode = "Alert"'] }),
    ]);
  });

  it('a clean unit gives the NO-FINDINGS all-clear; a check that fails to evaluate does not match', () => {
    const rg = planUnits('infracost-azure-firewall.json').find((u) => u.type === 'azurerm_resource_group')!;
    expect(deterministicPayload(runChecks(rulesFor(rg), rg), rg, 0).findings[0].rule_id).toBe('NO-FINDINGS');
    const broken = [{ ...parseRules(loadBuiltinRuleset('terraform', 'azure'))[0], check: 'values.no.such.key == 1' }];
    expect(runChecks(broken, rg)).toEqual([]);
  });

  it('merging: a proven rule keeps the model text with HIGH confidence; NO-FINDINGS goes', () => {
    const fw = planUnits('infracost-azure-firewall.json').find((u) => u.type === 'azurerm_firewall')!;
    const matches = runChecks(rulesFor(fw), fw);
    const model = {
      summary: 'm',
      findings: [
        {
          title: 'No findings',
          severity: 'INFO' as const,
          rule_id: 'NO-FINDINGS',
          risk: '',
          why_it_matters: '',
          suggested_next_step: '',
          confidence: 'HIGH' as const,
          evidence: [],
          resource_address: fw.name,
          tags: [],
        },
      ],
    };
    const merged = mergeFindings(model, matches, fw);
    expect(merged.findings.map((f) => f.rule_id)).toEqual(['TF-AZURE-FIREWALL-THREAT-INTEL-OFF']);
  });
});

describe('the `companions` variable (plan context: the resources that configure the unit)', () => {
  const bucket = {
    address: 'aws_s3_bucket.b',
    mode: 'managed',
    type: 'aws_s3_bucket',
    name: 'b',
    change: { actions: ['create'], before: null, after: { bucket: 'logs-x' }, after_unknown: {} },
  };
  const pab = (acls: boolean) => ({
    address: 'aws_s3_bucket_public_access_block.b',
    mode: 'managed',
    type: 'aws_s3_bucket_public_access_block',
    name: 'b',
    change: { actions: ['create'], before: null, after: { bucket: 'logs-x', block_public_acls: acls }, after_unknown: {} },
  });
  const bucketUnit = (changes: unknown[]) =>
    planJsonUnits({ format_version: '1.2', resource_changes: changes }, 'terraform').find((u) => u.type === 'aws_s3_bucket')!;
  const rule = (check: string) => [{ ...parseRules(loadBuiltinRuleset('terraform', 'aws'))[0], check }];
  const MISSING = "unit.action != 'destroy' && !companions.exists(c, c.type == 'aws_s3_bucket_public_access_block')";
  const WEAK = "companions.exists(c, c.type == 'aws_s3_bucket_public_access_block' && c.values.block_public_acls == false)";

  it('a missing public-access block matches, with the resource line as evidence; a present one does not', () => {
    const [match] = runChecks(rule(MISSING), bucketUnit([bucket]));
    expect(match.evidence).toEqual(['+ resource "aws_s3_bucket" "b" {']);
    expect(runChecks(rule(MISSING), bucketUnit([bucket, pab(true)]))).toEqual([]);
  });

  it("reads the companions' values: a weakened block matches, a strict one does not", () => {
    expect(runChecks(rule(WEAK), bucketUnit([bucket, pab(false)]))).toHaveLength(1);
    expect(runChecks(rule(WEAK), bucketUnit([bucket, pab(true)]))).toEqual([]);
  });

  it('units whose companions are unknown (plan text, stored before plan context) skip checks naming companions', () => {
    const text = terraformAnalyzer.ingest!(corpusFile('tfplan-text/terraform-equivalence-fully-populated-complex-update.txt').toString('utf8'))[0];
    expect(text.metadata.context).toBeUndefined();
    expect(runChecks(rule(MISSING), text)).toEqual([]); // unknown is not "missing"
    expect(runChecks(rule('size(companions) == 0 || true'), text)).toEqual([]); // skipped, not evaluated
    expect(runChecks(rule('unit.type != ""'), text)).toHaveLength(1); // other checks still run
  });

  it('is an empty list, not a missing variable, for a plan unit without companions', () => {
    expect(runChecks(rule('size(companions) == 0'), bucketUnit([bucket]))).toHaveLength(1);
  });
});
