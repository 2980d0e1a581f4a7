/**
 * Rule proposals from the verdict counters and the rules' newest entries (proposal-service.ts):
 * the same proposals as the rule computed over the whole feedback log (the reference below),
 * for trusted-only and all feedback, with counters kept by the appends or rebuilt from the log.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedbackRig, type FeedbackOptions, type FeedbackRig } from '../../../tests/helpers/feedback-rig';
import type { EngineContext } from '../context/engine-context';
import { SEVERITY_ORDER } from '../core/payload';
import type { FeedbackDoc, Verdict } from './feedback-store';
import { PROPOSAL_PRECISION_THRESHOLD, refreshProposals } from './proposal-service';
import { DEFAULT_RULE_HEALTH_SETTINGS, precisionOf, quote, type RuleHealthSettings } from './rule-health';

const ORG = 'org-a';
let rig: FeedbackRig;
let ctx: EngineContext;
let log: FeedbackDoc[];

beforeEach(async () => {
  rig = await startFeedbackRig(ORG);
  ({ ctx, log } = rig);
});
afterEach(() => rig.close());

const feedback = (ruleId: string, verdict: Verdict, opts?: FeedbackOptions) => rig.feedback(ruleId, verdict, opts);

/** The proposal of each rule computed over the whole log, oldest first (what a refresh must propose). */
function reference(settings: RuleHealthSettings) {
  const byRule = new Map<string, FeedbackDoc[]>();
  for (const f of log) if (!settings.trusted_only || f.trusted) byRule.set(f.rule_id, [...(byRule.get(f.rule_id) ?? []), f]);
  const out = new Map<string, { changes: Record<string, unknown>; evidence: Record<string, unknown>; reviewer_quotes: string[] }>();
  for (const [ruleId, entries] of byRule) {
    const count = (v: string) => entries.filter((f) => f.verdict === v).length;
    const [confirmed, rejected, severityWrong] = [count('confirmed'), count('rejected'), count('severity_wrong')];
    const precision = precisionOf(confirmed, rejected, settings.min_samples);
    const quotes = [
      ...new Set(
        entries
          .filter((f) => f.verdict === 'rejected' && f.comment.trim() !== '')
          .slice(-5)
          .reverse()
          .map((f) => quote(f.comment)),
      ),
    ];
    const changes: Record<string, unknown> = {};
    if (precision !== null && precision < PROPOSAL_PRECISION_THRESHOLD) {
      const notes = quotes.length > 0 ? ` Reviewers rejected findings of this rule for these reasons:\n${quotes.map((q) => `- ${q}`).join('\n')}` : '';
      changes.description_amendment = `Reviewer calibration for ${ruleId} (${ruleId}): reviewers rejected ${rejected} of ${confirmed + rejected} findings (precision ${precision.toFixed(2)}). Report this rule only when the evidence in the unit proves the problem.${notes}`;
    }
    const severity = entries.at(-1)?.severity ?? 'INFO';
    const lower = SEVERITY_ORDER[SEVERITY_ORDER.indexOf(severity) + 1];
    if (lower && severityWrong >= settings.min_samples && severityWrong > confirmed) changes.severity = lower;
    if (Object.keys(changes).length === 0) continue;
    const evidence = {
      confirmed,
      rejected,
      severity_wrong: severityWrong,
      unclear: count('unclear'),
      total: entries.length,
      precision,
      min_samples: settings.min_samples,
      feedback_through: entries.at(-1)!.created_at,
    };
    out.set(ruleId, { changes, evidence, reviewer_quotes: quotes });
  }
  return out;
}

async function pendingByRule(settings: RuleHealthSettings) {
  const { proposals } = await refreshProposals(ctx, ORG, settings);
  return new Map(proposals.map((p) => [p.rule_id, { changes: p.changes, evidence: p.evidence, reviewer_quotes: p.reviewer_quotes }]));
}

/** A log with noisy rules (quotes, blank and repeated comments, untrusted entries), a demotion, a healthy rule and another org. */
async function seedLog() {
  for (let i = 0; i < 14; i += 1) {
    await feedback('NOISY', i % 3 === 0 ? 'confirmed' : 'rejected', {
      comment: i % 4 === 0 ? '   ' : i % 5 === 0 ? 'same reason' : `reason ${i}`,
      trusted: i % 6 !== 5,
    });
  }
  await feedback('NOISY', 'rejected', { comment: 'same reason' });
  for (let i = 0; i < 8; i += 1) await feedback('LOUD', i < 6 ? 'severity_wrong' : 'unclear', { severity: i === 7 ? null : 'CRITICAL' });
  for (let i = 0; i < 9; i += 1) await feedback('DEMOTE', i < 7 ? 'severity_wrong' : 'confirmed', { severity: i === 8 ? 'MEDIUM' : 'HIGH' });
  for (let i = 0; i < 10; i += 1) await feedback('FINE', i < 8 ? 'confirmed' : 'missed', { comment: 'ok' });
  for (let i = 0; i < 7; i += 1) await feedback('UNTRUSTED-NOISE', 'rejected', { trusted: false, comment: `untrusted ${i}` });
  for (let i = 0; i < 7; i += 1) await feedback('NOISY', 'rejected', { org: 'org-b', comment: 'other org' });
}

describe('rule proposals from the verdict counters', () => {
  it('propose what the whole feedback log supports, trusted-only and all', async () => {
    await seedLog();
    for (const settings of [DEFAULT_RULE_HEALTH_SETTINGS, { ...DEFAULT_RULE_HEALTH_SETTINGS, trusted_only: false }]) {
      const expected = reference(settings);
      expect(expected.size).toBeGreaterThanOrEqual(2);
      expect(await pendingByRule(settings)).toEqual(expected);
    }
    expect(reference(DEFAULT_RULE_HEALTH_SETTINGS).get('NOISY')!.reviewer_quotes.length).toBeGreaterThan(1);
    expect(reference({ ...DEFAULT_RULE_HEALTH_SETTINGS, trusted_only: false }).has('UNTRUSTED-NOISE')).toBe(true);
  });

  it('keep the same answer when the counters are rebuilt from the log, and follow new feedback', async () => {
    await seedLog();
    await ctx.stores.feedback.invalidateCounts();
    expect(await pendingByRule(DEFAULT_RULE_HEALTH_SETTINGS)).toEqual(reference(DEFAULT_RULE_HEALTH_SETTINGS));
    for (let i = 0; i < 30; i += 1) await feedback('NOISY', 'confirmed');
    const after = await pendingByRule(DEFAULT_RULE_HEALTH_SETTINGS);
    expect(after.has('NOISY')).toBe(false); // withdrawn: precision is above the threshold now
    expect(after).toEqual(reference(DEFAULT_RULE_HEALTH_SETTINGS));
  });
});
