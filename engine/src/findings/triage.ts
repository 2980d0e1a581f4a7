import type { EngineContext } from '../context/engine-context';
import { NO_FINDINGS_RULE_ID, type AnalysisPayload } from '../core/payload';
import { yieldWhenDue } from '../ingest/timed-batches';
import { fireNeedsReview } from '../notify/review-webhook';
import { requiresReviewRuleIds } from '../custom-rules/custom-rule-service';
import { reopenLapsedSuppressions } from './suppression-expiry';

/**
 * Creates or refreshes the triage record of every finding of an analysis
 * (analysis-api.md "Finding status": new → open, or needs_review on LOW confidence or when the
 * org's rule has `requires_review`). Re-analysis refreshes last_seen and occurrence_count only.
 * The model's all-clear (`NO-FINDINGS`) creates no record. A record newly created in
 * needs_review fires the review webhook (trigger auto; best effort, not awaited).
 * `reviewRules`: the org's requires_review rule ids (requiresReviewRuleIds) when the caller
 * already holds them (the run loop reads them once per run; docs/decisions.md "Job runner costs"); else they are read here,
 * and only when a finding's status depends on them.
 * Returns the records newly created in needs_review.
 */
export async function recordTriage(
  ctx: EngineContext,
  orgId: string,
  resourceHash: string,
  payload: AnalysisPayload,
  now: string,
  reviewRules?: ReadonlySet<string>,
) {
  // A suppression that lapsed reopens before the run's gate and report read the statuses (suppression-expiry.ts).
  await reopenLapsedSuppressions(ctx, orgId);
  const needsReview: { rule_id: string }[] = [];
  const seen = new Set<string>();
  const decided = payload.findings.every((f) => f.rule_id === NO_FINDINGS_RULE_ID || f.confidence === 'LOW');
  const review = reviewRules ?? (decided ? new Set<string>() : await requiresReviewRuleIds(ctx, orgId));
  for (const finding of payload.findings) {
    if (finding.rule_id === NO_FINDINGS_RULE_ID || seen.has(finding.rule_id)) continue;
    seen.add(finding.rule_id);
    await yieldWhenDue(); // each record is a few store writes: a unit with many findings must not hold the loop
    const initialStatus = finding.confidence === 'LOW' || review.has(finding.rule_id) ? 'needs_review' : 'open';
    const { created } = await ctx.stores.findings.observe(
      orgId,
      {
        resource_hash: resourceHash,
        rule_id: finding.rule_id,
        resource_address: finding.resource_address,
        severity: finding.severity,
        title: finding.title,
        confidence: finding.confidence,
        initialStatus,
      },
      now,
    );
    if (created && initialStatus === 'needs_review') {
      needsReview.push({ rule_id: finding.rule_id });
      const record = await ctx.stores.findings.get(orgId, resourceHash, finding.rule_id);
      if (record) void fireNeedsReview(ctx, orgId, record, 'auto');
    }
  }
  return needsReview;
}
