/**
 * Rule health and the calibration block from the feedback counters (feedback-counts.ts): the
 * figures a reviewer sees match the log, survive a rebuild from the log, and rule ids of any
 * spelling round-trip through the counter's field paths.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedbackRig, type FeedbackOptions, type FeedbackRig } from '../../../tests/helpers/feedback-rig';
import type { EngineContext } from '../context/engine-context';
import type { Verdict } from './feedback-store';
import { calibrationText, DEFAULT_RULE_HEALTH_SETTINGS, ruleHealth } from './rule-health';

const ORG = 'org-a';
let rig: FeedbackRig;
let ctx: EngineContext;

beforeEach(async () => {
  rig = await startFeedbackRig(ORG);
  ctx = rig.ctx;
});
afterEach(() => rig.close());

/** Appends one entry; returns its created_at. */
const feedback = async (ruleId: string, verdict: Verdict, opts?: FeedbackOptions) => (await rig.feedback(ruleId, verdict, opts)).created_at;

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
