/**
 * Rule health and the calibration block from the feedback counters (feedback-counts.ts): the
 * figures a reviewer sees match the log, survive a rebuild from the log, and rule ids of any
 * spelling round-trip through the counter's field paths.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineContext } from '../context/engine-context';
import { silentLogger } from '../core/logger';
import type { Severity } from '../core/payload';
import { SecretBox } from '../llm/secret-box';
import { SqliteStore } from '../store/sqlite/store';
import { createStores, ensureSchema } from '../stores';
import type { Verdict } from './feedback-store';
import { calibrationText, DEFAULT_RULE_HEALTH_SETTINGS, ruleHealth } from './rule-health';

const ORG = 'org-a';
let store: SqliteStore;
let ctx: EngineContext;
let clock: number;
let seq = 0;

beforeEach(async () => {
  store = new SqliteStore(':memory:', 'memory');
  await ensureSchema(store);
  clock = Date.parse('2026-03-01T10:00:00.000Z');
  ctx = {
    stores: createStores(store, new SecretBox('rule-health-test-secret-material-0')),
    analyzers: { list: () => [], get: () => undefined },
    now: () => new Date(clock),
    log: silentLogger,
  };
});
afterEach(() => store.close());

async function feedback(ruleId: string, verdict: Verdict, opts: { trusted?: boolean; severity?: Severity | null; comment?: string; org?: string } = {}) {
  clock += 60_000;
  seq += 1;
  await ctx.stores.feedback.append({
    org_id: opts.org ?? ORG,
    feedback_id: `fb-${String(seq).padStart(6, '0')}`,
    resource_hash: 'h1',
    rule_id: ruleId,
    namespace: null,
    severity: opts.severity === undefined ? 'HIGH' : opts.severity,
    verdict,
    reason_code: null,
    comment: opts.comment ?? '',
    source: 'api',
    actor: null,
    trusted: opts.trusted ?? true,
    provenance: { provider: null, repo: null, pr_number: null, comment_id: null },
    created_at: new Date(clock).toISOString(),
  });
  return new Date(clock).toISOString();
}

describe('rule health from the feedback counters', () => {
  it('counts each rule’s verdicts, trusted or all, with its newest entry and severity, and a rebuild gives the same', async () => {
    const settings = { ...DEFAULT_RULE_HEALTH_SETTINGS, min_samples: 2 };
    for (let i = 0; i < 3; i += 1) await feedback('AWS.S3-001', 'confirmed');
    await feedback('AWS.S3-001', 'rejected', { severity: 'MEDIUM' });
    await feedback('AWS.S3-001', 'missed', { severity: null });
    const lastTrusted = await feedback('AWS.S3-001', 'severity_wrong', { severity: null });
    const lastAll = await feedback('AWS.S3-001', 'unclear', { trusted: false, severity: 'LOW' });
    await feedback('règle/ünïcode 2', 'rejected', { trusted: false });
    await feedback('OTHER-ORG', 'confirmed', { org: 'org-b' });

    const trusted = await ruleHealth(ctx, ORG, settings);
    expect(trusted.rules).toEqual([
      {
        rule_id: 'AWS.S3-001',
        title: 'AWS.S3-001',
        severity: 'MEDIUM',
        confirmed: 3,
        rejected: 1,
        severity_wrong: 1,
        unclear: 0,
        total: 6,
        precision: 0.75,
        calibrating: true,
        last_feedback_at: lastTrusted,
      },
    ]);
    const all = await ruleHealth(ctx, ORG, { ...settings, trusted_only: false });
    expect(all.rules.map((r) => [r.rule_id, r.total, r.unclear, r.severity, r.last_feedback_at])).toEqual([
      ['AWS.S3-001', 7, 1, 'LOW', lastAll],
      ['règle/ünïcode 2', 1, 0, 'HIGH', expect.any(String)],
    ]);

    // Rows deleted behind the store's back (the retention sweep): invalidated, rebuilt from the log.
    expect(await ctx.stores.feedback.invalidateCounts()).toBeGreaterThan(0);
    expect(await ruleHealth(ctx, ORG, settings)).toEqual(trusted);
    expect(await ruleHealth(ctx, ORG, { ...settings, trusted_only: false })).toEqual(all);
  });

  it('the calibration block quotes the three newest non-blank trusted comments, never an untrusted one', async () => {
    const settings = { ...DEFAULT_RULE_HEALTH_SETTINGS, min_samples: 2 };
    await feedback('R-1', 'confirmed', { comment: 'oldest' });
    await feedback('R-1', 'confirmed', { comment: 'second' });
    await feedback('R-1', 'rejected', { comment: 'third' });
    await feedback('R-1', 'confirmed', { comment: '   ' });
    await feedback('R-1', 'confirmed', { comment: 'newest' });
    await feedback('R-1', 'rejected', { comment: 'from an untrusted source', trusted: false });
    await feedback('R-2', 'confirmed', { comment: 'one sample only' });

    const text = await calibrationText(ctx, ORG, settings);
    expect(text.split('\n')).toEqual([
      '- Rule R-1 (R-1): reviewers confirmed 4 and rejected 1 of its findings (precision 0.80); 0 said the severity was wrong.',
      '  - confirmed: "newest"',
      '  - rejected: "third"',
      '  - confirmed: "second"',
    ]);
    expect(await calibrationText(ctx, ORG, { ...settings, calibration_enabled: false })).toBe('');
  });
});
