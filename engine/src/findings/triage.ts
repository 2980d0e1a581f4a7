import type { EngineContext } from '../context';
import { NO_FINDINGS_RULE_ID, type AnalysisPayload } from '../analysis/payload';

/**
 * Creates or refreshes the triage record of every finding of an analysis
 * (analysis-api.md "Finding status": new → open, or needs_review on LOW confidence).
 * Re-analysis refreshes last_seen and occurrence_count only. The model's all-clear
 * (`NO-FINDINGS`) creates no record. Returns the records newly created in needs_review.
 */
export async function recordTriage(ctx: EngineContext, orgId: string, resourceHash: string, payload: AnalysisPayload, now: string) {
  const needsReview: { rule_id: string }[] = [];
  const seen = new Set<string>();
  for (const finding of payload.findings) {
    if (finding.rule_id === NO_FINDINGS_RULE_ID || seen.has(finding.rule_id)) continue;
    seen.add(finding.rule_id);
    const initialStatus = finding.confidence === 'LOW' ? 'needs_review' : 'open';
    const { created } = await ctx.stores.findings.observe(orgId, {
      resource_hash: resourceHash,
      rule_id: finding.rule_id,
      resource_address: finding.resource_address,
      severity: finding.severity,
      title: finding.title,
      confidence: finding.confidence,
      initialStatus,
    }, now);
    if (created && initialStatus === 'needs_review') needsReview.push({ rule_id: finding.rule_id });
  }
  return needsReview;
}
