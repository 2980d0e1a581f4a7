import { describe, expect, it } from 'vitest';
import { sarifSchemaErrors } from '../../../tests/helpers/sarif-schema';
import { parseRules } from '../rules/ruleset';
import { buildReportModel } from './model';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { buildSarifLog, buildSarifLogInSlices, lookForText, SARIF_FINGERPRINT_KEY, serializeSarif, unitLocation, type SarifInput } from './sarif';

const RULES = parseRules(
  [
    '## S3-001: Bucket is public',
    'Severity: HIGH',
    'Applies to: aws_s3_bucket',
    '',
    'Look for:',
    '- `acl = "public-read"` on a bucket.',
    '- A bucket policy granting `Principal: "*"`.',
    '',
    'Compliant example:',
    '```hcl',
    'acl = "private"',
    '```',
  ].join('\n'),
);

function sarifOf(
  overrides: Partial<SarifInput> = {},
  resources = [
    buildResource(),
    buildResource({
      hash: 'h-sg',
      type: 'aws_security_group',
      name: 'web',
      action: 'update',
      findings: [
        buildFinding({ rule_id: 'SG-OPEN', title: 'Open ingress', severity: 'MEDIUM', resource_address: 'aws_security_group.web' }),
        buildFinding({ rule_id: 'SG-DESC', title: 'No description', severity: 'LOW', resource_address: 'aws_security_group.web', status: 'false_positive' }),
      ],
    }),
  ],
) {
  const model = buildReportModel({ namespace: 'ns', generatedAt: '2025-01-01T00:00:00.000Z', includeSuppressed: true, resources });
  return buildSarifLog({
    model,
    units: new Map<string, Record<string, unknown>>([
      ['h-logs', { source: 'plan-json', address: 'module.store.aws_s3_bucket.logs' }],
      ['h-sg', { source: 'diff', path: 'infra/network main.tf', address: 'aws_security_group.web', new_start: 12, old_start: 10 }],
    ]),
    rules: new Map(RULES.map((r) => [r.rule_id, r])),
    notes: new Map([['h-sg\u0000SG-DESC', 'Descriptions are optional here.']]),
    tool: { name: 'Planwarden', version: '0.1.0' },
    ...overrides,
  });
}

describe('buildSarifLog', () => {
  it('is a valid SARIF 2.1.0 log with one run', () => {
    const log = sarifOf();
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
  });

  it('maps severities to levels and GitHub security-severity', () => {
    const results = sarifOf().runs[0].results!;
    expect(results.map((r) => [r.ruleId, r.level, r.properties?.['security-severity']])).toEqual([
      ['S3-001', 'error', '8.0'],
      ['SG-OPEN', 'warning', '5.5'],
      ['SG-DESC', 'note', '3.0'],
    ]);
  });

  it('describes the rules from the ruleset, with look-for help text, and indexes them', () => {
    const run = sarifOf().runs[0];
    const rules = run.tool.driver.rules!;
    expect(rules.map((r) => r.id)).toEqual(['S3-001', 'SG-DESC', 'SG-OPEN']);
    const s3 = rules[0];
    expect(s3.shortDescription?.text).toBe('Bucket is public');
    expect(s3.help?.text).toContain('Severity: HIGH');
    expect(s3.help?.text).toContain('Principal: "*"');
    expect(s3.help?.text).not.toContain('Compliant example');
    expect(s3.help?.markdown).toContain('## S3-001: Bucket is public');
    expect(s3.properties).toMatchObject({ 'security-severity': '8.0', tags: expect.arrayContaining(['security']) });
    // A rule the ruleset does not know is described from its finding.
    expect(rules[2].shortDescription?.text).toBe('Open ingress');
    for (const r of run.results!) expect(rules[r.ruleIndex!].id).toBe(r.ruleId);
  });

  it('locates diff units by file and line, plan units by resource address', () => {
    const [plan, diff] = sarifOf().runs[0].results!;
    expect(plan.locations![0].physicalLocation).toBeUndefined();
    expect(plan.locations![0].logicalLocations![0]).toMatchObject({ fullyQualifiedName: 'module.store.aws_s3_bucket.logs', kind: 'resource' });
    expect(diff.locations![0].physicalLocation).toEqual({ artifactLocation: { uri: 'infra/network%20main.tf' }, region: { startLine: 12 } });
  });

  it('fingerprints by unit hash and rule id: same pair, same fingerprint, whatever else changes', () => {
    const a = sarifOf().runs[0].results![0];
    const b = sarifOf({}, [buildResource({ findings: [buildFinding({ title: 'Reworded', risk: 'Other words.', severity: 'CRITICAL' })] })]).runs[0].results![0];
    expect(a.partialFingerprints![SARIF_FINGERPRINT_KEY]).toMatch(/^[0-9a-f]{64}$/);
    expect(b.partialFingerprints![SARIF_FINGERPRINT_KEY]).toBe(a.partialFingerprints![SARIF_FINGERPRINT_KEY]);
    const other = sarifOf({}, [buildResource({ hash: 'h-other' })]).runs[0].results![0];
    expect(other.partialFingerprints![SARIF_FINGERPRINT_KEY]).not.toBe(a.partialFingerprints![SARIF_FINGERPRINT_KEY]);
  });

  it('carries false_positive and suppressed findings as suppressions with the triage note; others have none', () => {
    const results = sarifOf({}, [
      buildResource({
        findings: [
          buildFinding({ rule_id: 'A', status: 'suppressed' }),
          buildFinding({ rule_id: 'B', status: 'acknowledged' }),
          buildFinding({ rule_id: 'C', status: 'needs_review' }),
        ],
      }),
    ]).runs[0].results!;
    const byRule = Object.fromEntries(results.map((r) => [r.ruleId, r]));
    expect(byRule.A.suppressions).toEqual([{ kind: 'external', status: 'accepted', justification: 'Triaged as suppressed in Planwarden' }]);
    expect(byRule.B.suppressions).toBeUndefined();
    expect(byRule.C.suppressions).toBeUndefined();
    expect(byRule.B.properties?.status).toBe('acknowledged');
    const fp = sarifOf().runs[0].results!.find((r) => r.ruleId === 'SG-DESC')!;
    expect(fp.suppressions![0].justification).toBe('Triaged as false_positive in Planwarden: Descriptions are optional here.');
  });

  it('is valid with no findings at all', () => {
    const log = sarifOf({}, [buildResource({ findings: [] })]);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].tool.driver.rules).toEqual([]);
  });
});

describe('unitLocation', () => {
  it('prefers the new side of a diff, then HCL/blob start lines; no line without a path', () => {
    expect(unitLocation({ path: './a/b.tf', new_start: 3, old_start: 1 }, null)).toEqual({ path: 'a/b.tf', line: 3, address: null });
    expect(unitLocation({ path: 'x.tf', start_line: 7, address: 'aws_vpc.main' }, 'fallback')).toEqual({ path: 'x.tf', line: 7, address: 'aws_vpc.main' });
    expect(unitLocation({ address: 'aws_vpc.main', start_line: 4 }, null)).toEqual({ path: null, line: null, address: 'aws_vpc.main' });
    expect(unitLocation({ path: 'x.tf', new_start: 0 }, 'a.b')).toEqual({ path: 'x.tf', line: null, address: 'a.b' });
  });
});

describe('lookForText', () => {
  it('returns the list under "Look for:" and null without one', () => {
    expect(lookForText(RULES[0].body)).toBe('- `acl = "public-read"` on a bucket.\n- A bucket policy granting `Principal: "*"`.');
    expect(lookForText('## X: y\nSeverity: LOW\n\nJust prose.')).toBeNull();
  });
});

describe('buildSarifLogInSlices', () => {
  it('builds the same log as buildSarifLog for a namespace of thousands of findings', async () => {
    const severities = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
    const statuses = ['open', 'acknowledged', 'suppressed', 'false_positive', 'needs_review'] as const;
    const resources = Array.from({ length: 3000 }, (_, i) =>
      buildResource({
        hash: `h-${i}`,
        name: `b${i}`,
        findings: [
          buildFinding({ rule_id: 'S3-001', resource_address: `aws_s3_bucket.b${i}`, status: statuses[i % statuses.length] }),
          buildFinding({ rule_id: `X-${i % 37}`, severity: severities[i % severities.length], resource_address: `aws_s3_bucket.b${i}` }),
        ],
      }),
    );
    const model = buildReportModel({ namespace: 'big', generatedAt: '2025-01-01T00:00:00.000Z', includeSuppressed: true, resources });
    const input: SarifInput = {
      model,
      units: new Map(resources.map((r, i) => [r.hash, { source: 'diff', path: `mod${i % 7}/main.tf`, new_start: i + 1 }])),
      rules: new Map(RULES.map((r) => [r.rule_id, r])),
      notes: new Map(resources.map((r, i) => [`${r.hash}\u0000S3-001`, i % 2 === 0 ? `note ${i}` : null])),
      tool: { name: 'Planwarden', version: '0.1.0' },
    };
    const sliced = await buildSarifLogInSlices(input);
    expect(sliced.runs[0].results).toHaveLength(6000);
    expect(serializeSarif(sliced)).toBe(serializeSarif(buildSarifLog(input)));
  });
});
