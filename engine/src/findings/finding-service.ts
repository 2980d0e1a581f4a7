import { z } from 'zod';
import type { Severity } from '../core/payload';
import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import { fireNeedsReview } from '../notify/review-webhook';
import { appendFeedback, feedbackActor, verdictForStatus } from './feedback-service';
import { REASON_CODES, type ReasonCode } from './feedback-store';
import { FINDING_STATUSES, type FindingDoc, type FindingListFilter, type FindingStatus } from './finding-store';
import { findingJson, findingsPageJson, presentFinding } from './finding-view';
import { dayKey, daysAfter, nextUtcDay, RESOLVED_STATUSES, stateCounts } from './finding-counts';
import { detectionHashes, detectionNamespace, type Detection } from './run-detection';

export { presentFinding } from './finding-view';

/** PATCH /findings/{resource_hash}/{rule_id} body. */
export const UpdateFindingSchema = z
  .object({
    status: z.enum(FINDING_STATUSES as [FindingStatus, ...FindingStatus[]]),
    reason_code: z
      .enum(REASON_CODES as [ReasonCode, ...ReasonCode[]])
      .nullable()
      .optional(),
    note: z.string().max(4000).nullable().optional(),
  })
  .strict();

/**
 * GET /findings: the org's triage records, newest last_seen first, filtered by status,
 * severity, rule_id and (our addition) namespace. `{findings}`.
 */
export async function listFindings(ctx: EngineContext, orgId: string, filter: FindingsFilter, page: { limit: number; offset: number }) {
  const rows = await ctx.stores.findings.list(orgId, await storeFilter(ctx, orgId, filter), page);
  return { findings: rows.map(presentFinding) };
}

/**
 * Records per slice of a GET /findings reply: a page of more is rendered and sent this many at a
 * time, with a turn of the event loop between slices (docs/decisions.md "Findings pages in slices").
 */
export const FINDINGS_SLICE = 250;

/**
 * GET /findings: listFindings' body as JSON text, byte-identical to `JSON.stringify(await
 * listFindings(...))`, built from the records' stored JSON without parsing them (finding-view.ts):
 * `{body}`, the whole text, for a page of at most FINDINGS_SLICE records; else `{slices}`, the
 * records as API JSON texts (findingJson), FINDINGS_SLICE per array, each rendered when asked
 * for. The page is read in one query: sub-pages by offset would each skip the rows before them
 * again (four times the reading of a deep page) and could disagree under concurrent writes.
 * Throws ValidationError (422) for a detection filter without exactly one namespace.
 */
export async function listFindingsJsonSliced(
  ctx: EngineContext,
  orgId: string,
  filter: FindingsFilter,
  page: { limit: number; offset: number },
): Promise<{ body: string } | { slices: Iterable<string[]> }> {
  const stored = await ctx.stores.findings.listRawJson(orgId, await storeFilter(ctx, orgId, filter), page);
  if (stored.length <= FINDINGS_SLICE) return { body: findingsPageJson(stored) };
  function* slices(): Generator<string[]> {
    for (let i = 0; i < stored.length; i += FINDINGS_SLICE) yield stored.slice(i, i + FINDINGS_SLICE).map(findingJson);
  }
  return { slices: slices() };
}

/** GET /findings filters (`namespace` is our addition: one name, or several, docs/decisions.md "Several namespaces"). */
export interface FindingsFilter {
  status?: FindingStatus;
  severity?: Severity;
  rule_id?: string;
  namespace?: string | readonly string[];
  /** Our addition, with exactly one namespace: its findings in one run-detection state (run-detection.ts). */
  detection?: Detection;
}

/** The store's filter: namespaces become the hashes of their member resources (any of them). */
async function storeFilter(ctx: EngineContext, orgId: string, filter: FindingsFilter): Promise<FindingListFilter> {
  let hashes: string[] | undefined;
  if (filter.detection !== undefined) {
    hashes = await detectionHashes(ctx, orgId, detectionNamespace(filter.namespace), filter.detection);
  } else if (filter.namespace !== undefined) {
    const names = typeof filter.namespace === 'string' ? [filter.namespace] : filter.namespace;
    const members = await Promise.all(names.map((n) => ctx.stores.resources.listMembers(orgId, n)));
    hashes = [...new Set(members.flat().map((m) => m.hash))];
  }
  return { status: filter.status, severity: filter.severity, rule_id: filter.rule_id, resource_hashes: hashes };
}

/**
 * GET /findings/summary over the last `days` days:
 * `{period_days, total, by_status, by_severity_open, new_in_period, resolved_in_period}`.
 * new = first_seen in the window; resolved = now in a status other than open/needs_review and
 * last triaged in the window (analysis-api.md "Finding status": a resolved finding).
 * From the org's counter document (finding-counts.ts; docs/decisions.md "Aggregate counters"):
 * the whole UTC days after the window's first instant from day buckets; of that first day, new
 * records from its hour counter plus a range count of the first hour, resolved ones by an indexed
 * range count (triage is paced by reviewers), so the cost follows one hour's records, not the org's.
 */
export async function findingsSummary(ctx: EngineContext, orgId: string, days: number) {
  const now = ctx.now();
  const since = new Date(now.getTime() - days * 86_400_000).toISOString();
  const firstDayEnd = nextUtcDay(since);
  const count = (filter: Record<string, unknown>) => ctx.stores.findings.count(orgId, filter);
  const [counts, newFirstDay, resolvedFirstDay] = await Promise.all([
    ctx.stores.findings.summaryCounts(orgId, now),
    ctx.stores.findings.newSinceInDay(orgId, since, now),
    count({ status: { $in: RESOLVED_STATUSES }, updated_at: { $gte: since, $lt: firstDayEnd } }),
  ]);
  const sinceDay = dayKey(since);
  return {
    period_days: days,
    ...stateCounts(counts, FINDING_STATUSES),
    new_in_period: newFirstDay + daysAfter(counts, 'n', sinceDay),
    resolved_in_period: resolvedFirstDay + daysAfter(counts, 'r', sinceDay),
  };
}

/**
 * PATCH /findings/{resource_hash}/{rule_id}: sets the status (and note when given). A verdict
 * status (acknowledged, suppressed, false_positive) appends to the feedback log (source
 * dashboard_triage); needs_review fires the review webhook (trigger manual, best effort).
 * Audited finding.status_update. Throws NotFoundError (404) for an unknown pair.
 * Returns the presented record.
 */
export async function updateFindingStatus(ctx: IdentityCtx, orgId: string, resourceHash: string, ruleId: string, input: z.infer<typeof UpdateFindingSchema>) {
  const engine = ctx.engine;
  const before = await engine.stores.findings.get(orgId, resourceHash, ruleId);
  if (!before) throw new NotFoundError('No finding for this resource_hash and rule_id');
  const changes: Partial<FindingDoc> = { status: input.status, updated_by: feedbackActor(ctx), updated_at: engine.now().toISOString() };
  if (input.note !== undefined) changes.note = input.note;
  const after = await engine.stores.findings.update(orgId, resourceHash, ruleId, changes);
  if (!after) throw new NotFoundError('No finding for this resource_hash and rule_id');
  const reasonCode = input.reason_code ?? null;
  const verdict = verdictForStatus(input.status, reasonCode);
  if (verdict) {
    await appendFeedback(engine, orgId, after, {
      verdict,
      reason_code: reasonCode,
      comment: input.note ?? '',
      source: 'dashboard_triage',
      actor: feedbackActor(ctx),
    });
  }
  if (input.status === 'needs_review') void fireNeedsReview(engine, orgId, after, 'manual');
  const presented = presentFinding(after);
  await recordAudit(ctx, {
    orgId,
    action: 'finding.status_update',
    targetType: 'finding',
    targetId: `${resourceHash}/${ruleId}`,
    before: presentFinding(before),
    after: { ...presented, reason_code: reasonCode },
  });
  return presented;
}
