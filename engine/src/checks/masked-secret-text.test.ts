import { describe, expect, it } from 'vitest';
import { terraformAnalyzer } from '../analyzers/terraform/index';
import { loadBuiltinRuleset } from '../rules/ruleset';
import { selectRules } from '../rules/select';
import { deterministicPayload } from './merge';
import { runChecks } from './run-checks';

const LITERAL = 'S3cr3t-Passw0rd-for-tests!';
const PLAN = JSON.stringify({
  format_version: '1.2',
  resource_changes: [
    {
      address: 'azurerm_linux_virtual_machine.jump',
      mode: 'managed',
      type: 'azurerm_linux_virtual_machine',
      name: 'jump',
      change: { actions: ['create'], before: null, after: { name: 'jump', admin_username: 'ops', admin_password: LITERAL }, after_unknown: {} },
    },
  ],
});

describe('a plain-text secret finding says what its mask means', () => {
  it('tells that the input holds the literal and that it is masked here, and never repeats it', () => {
    const [unit] = terraformAnalyzer.ingest!(PLAN);
    const rules = selectRules(loadBuiltinRuleset('terraform', 'default'), unit).rules;
    const finding = deterministicPayload(runChecks(rules, unit), unit, 1).findings.find((f) => f.rule_id === 'TF-GEN-SECRET-PLAINTEXT');
    expect(finding).toBeDefined();
    expect(finding!.risk).toContain('admin_password');
    expect(finding!.risk).toContain('(sensitive value)');
    expect(finding!.risk).toBe(
      `${unit.name} has admin_password = (sensitive value), where the input holds a plain-text literal that is masked here: Secret value in plain text.`,
    );
    expect(JSON.stringify(finding)).not.toContain(LITERAL);
  });
});
