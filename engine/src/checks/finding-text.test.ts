import { describe, expect, it } from 'vitest';
import { corpusFile } from '../../../tests/corpus';
import { terraformAnalyzer } from '../analyzers/terraform/index';
import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules, type RuleDef } from '../rules/ruleset';
import { selectRules } from '../rules/select';
import { failingAttributes, ruleSections } from './finding-text';
import { deterministicPayload } from './merge';
import { runChecks } from './run-checks';

/** Every built-in rule that carries a `Check (CEL):` condition, once per rule id. */
function builtInCheckedRules(): RuleDef[] {
  const byId = new Map<string, RuleDef>();
  for (const analyzer of BUILT_IN_ANALYZERS.map((a) => a.name))
    for (const variant of listBuiltinRuleVariants(analyzer))
      for (const rule of parseRules(loadBuiltinRuleset(analyzer, variant))) if (rule.check) byId.set(rule.rule_id, rule);
  return [...byId.values()];
}

describe('check findings read from their rule', () => {
  it('every built-in rule with a check has the Risk, Remediation and compliant example a finding is drawn from', () => {
    const rules = builtInCheckedRules();
    expect(rules.length).toBeGreaterThanOrEqual(100);
    const lacking = rules.flatMap((rule) => {
      const s = ruleSections(rule.body);
      const gaps = [
        s.risk === null || s.risk.length < 40 ? 'Risk:' : null,
        s.remediation === null || s.remediation.length < 20 ? 'Remediation:' : null,
        s.compliantExample === null ? 'Compliant example:' : null,
      ].filter((g) => g !== null);
      return gaps.length > 0 ? [`${rule.rule_id}: ${gaps.join(', ')}`] : [];
    });
    expect(lacking).toEqual([]);
  });

  it('an Azure Firewall left on Alert: the failing attribute, the rule risk and its remediation, never the CEL expression', () => {
    const units = terraformAnalyzer.ingest!(corpusFile('tfplan-json/infracost-azure-firewall.json').toString('utf8'));
    const fw = units.find((u) => u.type === 'azurerm_firewall')!;
    const rules = selectRules(loadBuiltinRuleset('terraform', 'azure'), fw).rules;
    const [finding] = deterministicPayload(runChecks(rules, fw), fw, 1).findings;
    expect(finding.rule_id).toBe('TF-AZURE-FIREWALL-THREAT-INTEL-OFF');
    expect(finding.risk).toBe(`${fw.name} sets threat_intel_mode = "Alert": Azure Firewall threat intelligence does not block.`);
    expect(finding.why_it_matters).toMatch(/known-malicious IP addresses and domains .* never stopped\.$/);
    expect(finding.suggested_next_step).toContain('threat_intel_mode = "Deny"');
    for (const text of [finding.risk, finding.why_it_matters, finding.suggested_next_step]) {
      expect(text).not.toMatch(/has\(values|See rule|no longer applies/);
    }
    expect(finding.evidence).toEqual(['+ threat_intel_mode = "Alert"']);
  });

  it('names nested attributes by path and value, skips absent ones and long listings', () => {
    const values = {
      metadata_options: [{ http_tokens: 'optional', http_endpoint: 'enabled' }],
      parameter: [
        { name: 'a', value: '1' },
        { name: 'b', value: '2' },
      ],
      secret: '(sensitive value)',
    };
    expect(failingAttributes('values.metadata_options.exists(m, m.http_tokens == "optional" && m.http_endpoint != "disabled")', values)).toEqual([
      'metadata_options[0].http_tokens = "optional"',
      'metadata_options[0].http_endpoint = "enabled"',
    ]);
    expect(failingAttributes('!values.parameter.exists(p, p.name == "require_secure_transport")', values)).toEqual([]);
    expect(failingAttributes('has(values.missing) || values.secret != ""', values)).toEqual(['secret = (sensitive value)']);
    expect(failingAttributes('["secret", "missing"].exists(k, !(k in values) || values[k] == "")', values)).toEqual(['secret = (sensitive value)']);
    expect(failingAttributes('companions.exists(c, c.values.metadata_options == [])', values)).toEqual([]);
  });

  it('reads the Risk and Remediation paragraphs and the compliant code of a rule section', () => {
    const s = ruleSections(
      ['## X-1: T', 'Severity: LOW', 'Risk: first line', 'continued.', 'Remediation: do this.', '', 'Compliant example:', '```hcl', 'a = 1', '```'].join('\n'),
    );
    expect(s).toEqual({ risk: 'first line continued.', remediation: 'do this.', lookFor: null, compliantExample: 'a = 1' });
  });
});
