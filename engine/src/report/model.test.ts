import { describe, expect, it } from 'vitest';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { buildReportModel, type ReportInput } from './model';

function buildInput(overrides: Partial<ReportInput> = {}): ReportInput {
  return {
    namespace: 'prod',
    generatedAt: '2025-06-01T12:00:00.000Z',
    includeSuppressed: false,
    resources: [buildResource()],
    ...overrides,
  };
}

describe('buildReportModel', () => {
  it('hides suppressed and false_positive findings by default and counts them', () => {
    const model = buildReportModel(
      buildInput({
        resources: [
          buildResource({
            findings: [
              buildFinding({ rule_id: 'A', status: 'open' }),
              buildFinding({ rule_id: 'B', status: 'suppressed' }),
              buildFinding({ rule_id: 'C', status: 'false_positive' }),
            ],
          }),
        ],
      }),
    );
    expect(model.findings.map((f) => f.rule_id)).toEqual(['A']);
    expect(model.hidden_count).toBe(2);
    expect(model.status_counts).toMatchObject({ open: 1, suppressed: 1, false_positive: 1 });
    expect(model.counts.total).toBe(1);
    expect(model.resources[0]).toMatchObject({ finding_count: 1, hidden_count: 2 });
  });

  it('shows hidden statuses with a badge when includeSuppressed', () => {
    const model = buildReportModel(
      buildInput({
        includeSuppressed: true,
        resources: [
          buildResource({
            findings: [buildFinding({ rule_id: 'B', status: 'suppressed' }), buildFinding({ rule_id: 'C', status: 'false_positive' })],
          }),
        ],
      }),
    );
    expect(model.hidden_count).toBe(0);
    expect(model.findings.map((f) => [f.rule_id, f.badge, f.hidden_by_default])).toEqual([
      ['B', 'Suppressed', true],
      ['C', 'False positive', true],
    ]);
  });

  it('keeps acknowledged findings visible with a badge; open ones carry none', () => {
    const model = buildReportModel(
      buildInput({
        resources: [
          buildResource({
            findings: [buildFinding({ rule_id: 'A', status: 'acknowledged' }), buildFinding({ rule_id: 'B' })],
          }),
        ],
      }),
    );
    const byRule = Object.fromEntries(model.findings.map((f) => [f.rule_id, f]));
    expect(byRule.A).toMatchObject({ status: 'acknowledged', badge: 'Acknowledged', status_label: 'Acknowledged' });
    expect(byRule.B).toMatchObject({ status: 'open', badge: null, status_label: 'Open' });
  });

  it('sorts by severity, then address, then rule id, and numbers the anchors in that order', () => {
    const model = buildReportModel(
      buildInput({
        resources: [
          buildResource({
            hash: 'h1',
            findings: [
              buildFinding({ rule_id: 'Z', severity: 'LOW', resource_address: 'a.a' }),
              buildFinding({ rule_id: 'Y', severity: 'CRITICAL', resource_address: 'b.b' }),
              buildFinding({ rule_id: 'B', severity: 'HIGH', resource_address: 'b.b' }),
              buildFinding({ rule_id: 'A', severity: 'HIGH', resource_address: 'b.b' }),
              buildFinding({ rule_id: 'X', severity: 'HIGH', resource_address: 'a.a' }),
            ],
          }),
        ],
      }),
    );
    expect(model.findings.map((f) => f.rule_id)).toEqual(['Y', 'X', 'A', 'B', 'Z']);
    expect(model.findings.map((f) => f.id)).toEqual(['finding-1', 'finding-2', 'finding-3', 'finding-4', 'finding-5']);
    expect(model.severities).toEqual([
      { severity: 'CRITICAL', severity_class: 'critical', count: 1 },
      { severity: 'HIGH', severity_class: 'high', count: 3 },
      { severity: 'MEDIUM', severity_class: 'medium', count: 0 },
      { severity: 'LOW', severity_class: 'low', count: 1 },
      { severity: 'INFO', severity_class: 'info', count: 0 },
    ]);
    expect(model.counts).toEqual({ CRITICAL: 1, HIGH: 3, MEDIUM: 0, LOW: 1, INFO: 0, total: 5 });
  });

  it('groups by analyzer and flags multi_analyzer only when several analyzers contribute', () => {
    const single = buildReportModel(buildInput());
    expect(single.multi_analyzer).toBe(false);
    expect(single.groups.map((g) => g.analyzer)).toEqual(['terraform']);

    const multi = buildReportModel(
      buildInput({
        resources: [
          buildResource({ hash: 'h1', analyzer: 'terraform' }),
          buildResource({
            hash: 'h2',
            type: 'file',
            name: 'main.tf',
            analyzer: 'codediff',
            findings: [buildFinding({ rule_id: 'D-1', severity: 'CRITICAL', resource_address: 'main.tf' })],
          }),
        ],
      }),
    );
    expect(multi.multi_analyzer).toBe(true);
    expect(multi.analyzers).toEqual(['codediff', 'terraform']);
    expect(multi.groups.map((g) => [g.analyzer, g.findings.map((f) => f.rule_id), g.counts.total])).toEqual([
      ['codediff', ['D-1'], 1],
      ['terraform', ['S3-001'], 1],
    ]);
  });

  it('treats NO-FINDINGS as the all-clear: not a finding, the resource is clean', () => {
    const model = buildReportModel(
      buildInput({
        resources: [
          buildResource({ hash: 'h1', name: 'ok', findings: [buildFinding({ rule_id: 'NO-FINDINGS', severity: 'INFO' })] }),
          buildResource({ hash: 'h2', name: 'empty', findings: [] }),
          buildResource({ hash: 'h3', name: 'hushed', findings: [buildFinding({ status: 'suppressed' })] }),
          buildResource({ hash: 'h4', name: 'pending', summary: null, findings: [] }),
        ],
      }),
    );
    expect(model.findings).toEqual([]);
    expect(model.has_findings).toBe(false);
    expect(model.status_counts.open).toBe(0);
    expect(model.clean_resources.map((r) => r.address)).toEqual(['aws_s3_bucket.ok', 'aws_s3_bucket.empty']);
    expect(model.pending_resources.map((r) => r.address)).toEqual(['aws_s3_bucket.pending']);
    expect(model.resource_counts).toEqual({ total: 4, analysed: 3, pending: 1, clean: 2, with_findings: 1 });
  });

  it('falls back to the resource address and keeps only http(s) links', () => {
    const model = buildReportModel(
      buildInput({
        report_html_url: 'javascript:alert(1)',
        dashboard_url: 'https://pw.example/dash board',
        quota_exceeded: true,
        job: { job_id: 'j1', status: 'done' },
        resources: [buildResource({ findings: [buildFinding({ resource_address: '' })] })],
      }),
    );
    expect(model.findings[0].resource_address).toBe('aws_s3_bucket.logs');
    expect(model.report_html_url).toBeNull();
    expect(model.dashboard_url).toBe('https://pw.example/dash%20board');
    expect(model.quota_exceeded).toBe(true);
    expect(model.job).toEqual({ job_id: 'j1', status: 'done' });
  });
});
