import { describe, expect, it } from 'vitest';
import { analysisOutputSchema } from './output-schema';

describe('analysisOutputSchema', () => {
  it('enumerates the rules sent plus NO-FINDINGS and keeps to the strict-mode subset', () => {
    const { schema, ruleIds } = analysisOutputSchema(['A-1', 'B-2', 'A-1', 'NO-FINDINGS']);
    expect(ruleIds).toEqual(['A-1', 'B-2', 'NO-FINDINGS']);
    const finding = (schema as any).properties.findings.items;
    expect(finding.properties.rule_id.enum).toEqual(['A-1', 'B-2', 'NO-FINDINGS']);
    expect(finding.additionalProperties).toBe(false);
    expect([...finding.required].sort()).toEqual(Object.keys(finding.properties).sort()); // strict: every property required
    expect(JSON.stringify(schema)).not.toMatch(/minItems|minLength|pattern/);
  });
});
