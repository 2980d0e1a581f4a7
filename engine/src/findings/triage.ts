import type { EngineContext } from '../context/engine-context';
import { NO_FINDINGS_RULE_ID, type AnalysisPayload } from '../core/payload';
import { yieldWhenDue } from '../ingest/timed-batches';
import { fireNeedsReview } from '../notify/review-webhook';
import { requiresReviewRuleIds } from '../custom-rules/custom-rule-service';
import { reopenLapsedSuppressions } from './suppression-expiry';
import type { FindingObservation } from './finding-store';

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
  const decided = payload.findings.every((f) => f.rule_id === NO_FINDINGS_RULE_ID || f.confidence === 'LOW');
  const review = reviewRules ?? (decided ? new Set<string>() : await requiresReviewRuleIds(ctx, orgId));
  const observations: FindingObservation[] = [];
  for (const finding of payload.findings) {
    if (finding.rule_id === NO_FINDINGS_RULE_ID) continue;
    observations.push({
      resource_hash: resourceHash,
      rule_id: finding.rule_id,
      resource_address: finding.resource_address,
      severity: finding.severity,
      title: finding.title,
      confidence: finding.confidence,
      initialStatus: finding.confidence === 'LOW' || review.has(finding.rule_id) ? 'needs_review' : 'open',
    });
  }
  if (observations.length === 0) return [];
  await yieldWhenDue(); // the records are a few store writes together: the loop gets its turn before them when due
  // One batch per analysis (FindingStore.observeMany; a rule's second finding is not recorded
  // again): a few writes per unit, not a few per finding.
  const created = await ctx.stores.findings.observeMany(orgId, observations, now);
  const needsReview = created.filter((record) => record.status === 'needs_review');
  for (const record of needsReview) void fireNeedsReview(ctx, orgId, record, 'auto');
  return needsReview.map((record) => ({ rule_id: record.rule_id }));
}
