import { describe, expect, it } from 'vitest';
import { composeRuleset, listBuiltinRuleVariants, loadBuiltinRuleset, parseRules } from './ruleset';
import { rulesetRules, selectRuleDefs, selectRules } from './select';

const AWS = loadBuiltinRuleset('terraform', 'aws');
const plan = (type: string, action = 'create', extra: Record<string, unknown> = {}) => ({ type, action, metadata: { source: 'plan-json', ...extra } });

describe('selectRules', () => {
  it('sends an aws_s3_bucket plan unit its own rules and the wildcard rules only', () => {
    const s = selectRules(AWS, plan('aws_s3_bucket'));
    expect(s.ruleIds).toContain('TF-AWS-S3-PUBLIC-ACL');
    expect(s.ruleIds).toContain('TF-GEN-SECRET-PLAINTEXT');
    expect(s.ruleIds).not.toContain('TF-AWS-SG-ADMIN-PORTS-OPEN');
    expect(s.ruleIds).not.toContain('TF-GEN-PROVISIONER-REMOTE-CODE'); // configuration only
    expect(s.ruleIds).not.toContain('TF-GEN-STATEFUL-DESTROY'); // not being destroyed
    expect(s.ruleIds.length).toBeLessThan(parseRules(AWS).length / 3);
    // The text is a valid ruleset holding exactly the selected rules, with the section titles.
    expect(parseRules(s.text).map((r) => r.rule_id)).toEqual(s.ruleIds);
    expect(s.text).toMatch(/^# Terraform: general rules/);
    expect(s.text).toContain('# Terraform: AWS rules');
  });

  it('follows the plan action and resource-type aliases', () => {
    expect(selectRules(AWS, plan('aws_s3_bucket', 'destroy')).ruleIds).toContain('TF-GEN-STATEFUL-DESTROY');
    expect(selectRules(AWS, plan('aws_s3_bucket', 'update', { replace: true })).ruleIds).toContain('TF-GEN-STATEFUL-REPLACE');
    const alb = selectRules(AWS, plan('aws_alb')).ruleIds;
    expect(alb).toContain('TF-AWS-LB-ACCESS-LOGGING-OFF'); // the rule names aws_lb
    expect(alb).toContain('TF-GEN-DELETION-PROTECTION-OFF');
    expect(selectRules(AWS, plan('aws_s3_bucket_object')).ruleIds).toContain('TF-AWS-S3-PUBLIC-ACL'); // renamed aws_s3_object
  });

  it('gives every cloud type the corpus lacked a rule for its own rules', () => {
    const own = (variant: string, type: string) =>
      selectRules(loadBuiltinRuleset('terraform', variant), plan(type)).rules.filter((r) => r.applies_to.some((a) => a !== '*'));
    expect(own('aws', 'aws_lambda_function').map((r) => r.rule_id)).toEqual(
      expect.arrayContaining(['TF-AWS-LAMBDA-RUNTIME-DEPRECATED', 'TF-AWS-LAMBDA-ENV-KMS-MISSING']),
    );
    expect(own('aws', 'aws_cloudwatch_log_group').length).toBeGreaterThan(0);
    expect(own('aws', 'aws_secretsmanager_secret').length).toBeGreaterThan(0);
    expect(own('azure', 'azurerm_firewall').map((r) => r.rule_id)).toContain('TF-AZURE-FIREWALL-THREAT-INTEL-OFF');
    expect(own('azure', 'azurerm_network_interface').map((r) => r.rule_id)).toContain('TF-AZURE-NIC-PUBLIC-IP');
    expect(own('azure', 'azurerm_subnet').map((r) => r.rule_id)).toContain('TF-AZURE-SUBNET-NSG-MISSING');
  });

  it('keeps configuration-only rules for .tf diff blocks and every rule for whole-file units', () => {
    const diff = selectRules(AWS, { type: 'aws_instance', action: 'create', metadata: { source: 'diff' } });
    expect(diff.ruleIds).toContain('TF-GEN-PROVISIONER-REMOTE-CODE');
    const whole = selectRules(AWS, { type: 'terraform_file', action: 'update', metadata: { source: 'diff' } });
    expect(whole.ruleIds).toEqual(parseRules(AWS).map((r) => r.rule_id));
    // A plan resource whose type merely ends like a container type is a resource, not a file.
    expect(selectRules(AWS, plan('local_file', 'destroy')).ruleIds).toEqual(['TF-GEN-SECRET-PLAINTEXT']);
  });

  it('always sends custom rules (they name no type) and is byte-stable', () => {
    const composed = composeRuleset(AWS, [
      { category: 'org', rules: [{ rule_id: 'ORG-1', title: 'Tags', severity: 'LOW', description: 'Every resource is tagged.' }] },
    ]);
    const a = selectRules(composed, plan('aws_iam_role'));
    expect(a.ruleIds).toContain('ORG-1');
    expect(a.text).toContain('# Custom rules: org');
    expect(selectRules(composed, plan('aws_iam_role')).text).toBe(a.text);
    expect(selectRules(composed, plan('aws_s3_bucket')).text).not.toContain('TF-AWS-IAM-ADMIN-POLICY');
  });

  it('sends a generic analyzer (prose Applies to) its whole ruleset', () => {
    const blackhole = loadBuiltinRuleset('blackhole', 'default');
    expect(selectRules(blackhole, { type: 'shell_script', action: 'create', metadata: {} }).ruleIds).toEqual(parseRules(blackhole).map((r) => r.rule_id));
  });

  it('selectRuleDefs and rulesetRules give the rules selectRules and parseRules do, whatever the unit', () => {
    const units = [
      plan('aws_s3_bucket'),
      plan('aws_s3_bucket', 'destroy'),
      plan('aws_s3_bucket', 'update', { replace: true }),
      plan('aws_alb', 'no-op'),
      { type: 'aws_s3_bucket', action: 'create', metadata: { source: 'tf-config' } },
      { type: 'terraform_file', action: 'update', metadata: {} },
      { type: 'Deployment', action: 'create', metadata: {} },
    ];
    for (const analyzer of ['terraform', 'kubernetes', 'dockerfile', 'github-actions', 'cloudformation']) {
      for (const variant of listBuiltinRuleVariants(analyzer)) {
        const ruleset = loadBuiltinRuleset(analyzer, variant);
        expect(rulesetRules(ruleset)).toEqual(parseRules(ruleset));
        // Twice: the second answer comes from the cache.
        for (const unit of [...units, ...units]) expect(selectRuleDefs(ruleset, unit), `${variant} ${unit.type}`).toEqual(selectRules(ruleset, unit).rules);
      }
    }
  });
});
