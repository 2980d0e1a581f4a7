import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import type { IdentityCtx } from '../context/identity-context';
import type { FindingDoc, FindingStatus } from './finding-store';
import { REASON_CODES, VERDICTS, type FeedbackDoc, type FeedbackFilter, type FeedbackSource, type ReasonCode, type Verdict } from './feedback-store';
import { sortableId } from './ids';

/** analysis-api.md "Feedback record" presenter (explicit allow-list). */
export function presentFeedback(f: FeedbackDoc) {
  return {
    feedback_id: f.feedback_id,
    resource_hash: f.resource_hash,
    rule_id: f.rule_id,
    namespace: f.namespace,
    severity: f.severity,
    verdict: f.verdict,
    reason_code: f.reason_code,
    comment: f.comment,
    source: f.source,
    actor: f.actor,
    trusted: f.trusted,
    provenance: f.provenance,
    created_at: f.created_at,
  };
}

/** POST /feedback body. */
export const PostFeedbackSchema = z
  .object({
    resource_hash: z.string().min(1),
    rule_id: z.string().min(1),
    verdict: z.enum(VERDICTS as [Verdict, ...Verdict[]]),
    comment: z.string().max(4000).default(''),
    reason_code: z
      .enum(REASON_CODES as [ReasonCode, ...ReasonCode[]])
      .nullable()
      .default(null),
  })
  .strict();

/**
 * The verdict a triage status records (analysis-api.md "Findings and review feedback"):
 * acknowledged → confirmed; false_positive → rejected; suppressed follows its reason_code
 * (false_positive, not_applicable_here → rejected; accepted_risk, fixed → confirmed; other or
 * none → unclear, which counts for neither side). open and needs_review record nothing (null).
 */
export function verdictForStatus(status: FindingStatus, reasonCode: ReasonCode | null): Verdict | null {
  if (status === 'acknowledged') return 'confirmed';
  if (status === 'false_positive') return 'rejected';
  if (status !== 'suppressed') return null;
  if (reasonCode === 'false_positive' || reasonCode === 'not_applicable_here') return 'rejected';
  if (reasonCode === 'accepted_risk' || reasonCode === 'fixed') return 'confirmed';
  return 'unclear';
}

/** Who the log names as actor: the user, else the service key, else the principal kind. */
export function feedbackActor(ctx: IdentityCtx): string | null {
  return ctx.actor.userId ?? ctx.actor.keyId ?? null;
}

/**
 * Appends one entry to the org's feedback log for `finding`. `trusted` is decided here, once:
 * the sources this server accepts from authenticated org members (dashboard_triage, api) are
 * trusted; code-host sources pass their own decision (outside contributors, injection scanner).
 */
export async function appendFeedback(
  ctx: EngineContext,
  orgId: string,
  finding: Pick<FindingDoc, 'resource_hash' | 'rule_id'> & { severity: FindingDoc['severity'] | null },
  entry: {
    verdict: Verdict;
    reason_code: ReasonCode | null;
    comment: string;
    source: FeedbackSource;
    actor: string | null;
    trusted?: boolean;
    /** Code-host sources: where the decision was made, and the analysis (namespace) it is about. */
    provenance?: FeedbackDoc['provenance'];
    namespace?: string;
  },
): Promise<FeedbackDoc> {
  const namespaces = entry.namespace ? [entry.namespace] : await ctx.stores.resources.namespacesOf(orgId, finding.resource_hash);
  const doc: FeedbackDoc = {
    org_id: orgId,
    feedback_id: sortableId('fb'),
    resource_hash: finding.resource_hash,
    rule_id: finding.rule_id,
    namespace: namespaces[0] ?? null,
    severity: finding.severity,
    verdict: entry.verdict,
    reason_code: entry.reason_code,
    comment: entry.comment,
    source: entry.source,
    actor: entry.actor,
    trusted: entry.trusted ?? (entry.source === 'dashboard_triage' || entry.source === 'api'),
    provenance: entry.provenance ?? { provider: null, repo: null, pr_number: null, comment_id: null },
    created_at: ctx.now().toISOString(),
  };
  await ctx.stores.feedback.append({ ...doc });
  return doc;
}

/**
 * POST /feedback: records one reviewer decision about an existing finding (source `api`).
 * Throws NotFoundError (404) when the org has no finding for the pair. Returns the presented entry.
 */
export async function postFeedback(ctx: IdentityCtx, orgId: string, input: z.infer<typeof PostFeedbackSchema>) {
  const finding = await ctx.engine.stores.findings.get(orgId, input.resource_hash, input.rule_id);
  if (!finding) throw new NotFoundError('No finding for this resource_hash and rule_id');
  const doc = await appendFeedback(ctx.engine, orgId, finding, {
    verdict: input.verdict,
    reason_code: input.reason_code,
    comment: input.comment,
    source: 'api',
    actor: feedbackActor(ctx),
  });
  return presentFeedback(doc);
}

/** GET /feedback: `{feedback, total}` newest first. */
export async function listFeedback(ctx: EngineContext, orgId: string, filter: FeedbackFilter, page: { limit: number; offset: number }) {
  const [rows, total] = await Promise.all([ctx.stores.feedback.list(orgId, filter, page), ctx.stores.feedback.count(orgId, filter)]);
  return { feedback: rows.map(presentFeedback), total };
}
