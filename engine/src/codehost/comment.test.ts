import { describe, expect, it } from 'vitest';
import type { FindingDoc } from '../findings/finding-store';
import { GITHUB_COMMENT_LIMIT, namespaceFromBody, renderComment, type CommentInput } from './comment';

function finding(i: number): FindingDoc {
  return {
    org_id: 'o',
    resource_hash: `${i}`.padStart(64, '0'),
    rule_id: `AWS-RULE-${i}`,
    resource_address: `aws_security_group.rule_${i}_${'x'.repeat(200)}`,
    severity: 'HIGH',
    title: `A very long title ${'<script>|@team #12 '.repeat(40)}`,
    status: 'open',
    first_seen: '',
    last_seen: '',
    occurrence_count: 1,
    note: null,
    updated_by: null,
    updated_at: null,
    confidence: 'HIGH',
  } as FindingDoc;
}

const base: Omit<CommentInput, 'findings'> = {
  namespace: 'pr-acme-infra-7',
  state: 'failure',
  gate: { blocking: true, open: { CRITICAL: 0, HIGH: 5000, MEDIUM: 0, LOW: 0, INFO: 0 }, openAtOrAbove: 5000, needsReview: 0 },
  detections: [],
  jobStatus: 'done',
  jobError: null,
  quotaExceeded: false,
  reportUrl: 'https://pw.example/api/v1/reports/tok',
  dashboardUrl: 'https://dash.example/findings?namespace=pr-acme-infra-7',
  headSha: 'f'.repeat(40),
  now: new Date('2026-01-02T03:04:05Z'),
};

describe('the pull request comment', () => {
  it("always fits GitHub's 65,536-character limit: summary first, trimmed table with a count and the link to the rest", () => {
    const body = renderComment({ ...base, findings: Array.from({ length: 5000 }, (_, i) => finding(i)) });
    expect(body.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(body.split('\n')[0]).toBe('<!-- service-report:pr-acme-infra-7 -->');
    expect(namespaceFromBody(body)).toBe('pr-acme-infra-7');
    expect(body.indexOf('Open findings:')).toBeLessThan(body.indexOf('### Findings'));
    expect(body).toMatch(/\d+ more finding\(s\) not shown — \[Open the full report\]\(https:\/\/pw\.example\/api\/v1\/reports\/tok\)/);
    expect(body).toContain('Updated 2026-01-02 03:04 UTC · commit ffffffffffff');
  });

  it('renders model text inert: no HTML, no table breaks, no mentions', () => {
    const body = renderComment({ ...base, findings: [finding(1)] });
    expect(body).not.toContain('<script>');
    expect(body).not.toMatch(/@team/);
    const row = body.split('\n').find((l) => l.includes('AWS-RULE-1'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(7);
  });

  it("links each finding's title to its own page in the dashboard, and to nothing without the dashboard's address", () => {
    const one = finding(3);
    const linked = renderComment({ ...base, findings: [one] });
    expect(linked).toContain(`](https://dash.example/findings/pr-acme-infra-7/${one.resource_hash}/AWS-RULE-3) |`);
    const plain = renderComment({ ...base, dashboardUrl: null, findings: [one] });
    expect(plain).not.toContain('/findings/pr-acme-infra-7/');
    expect(
      plain
        .split('\n')
        .find((l) => l.includes('AWS-RULE-3'))!
        .split(/(?<!\\)\|/).length,
    ).toBe(7);
  });

  it('says what this push changed against the previous one, and nothing when there is no comparison', () => {
    const body = renderComment({ ...base, findings: [finding(1)], comparison: { new: 2, no_longer_detected: 1, unchanged: 7 } });
    expect(body).toContain('Since the previous push: +2 new · −1 no longer detected · 7 unchanged');
    expect(body.indexOf('Since the previous push')).toBeLessThan(body.indexOf('### Findings'));
    expect(renderComment({ ...base, findings: [finding(1)] })).not.toContain('Since the previous push');
  });
});
