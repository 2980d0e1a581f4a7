/**
 * One action for the findings a namespace's latest run no longer detects (docs/decisions.md
 * "Runs compared"): each is resolved as fixed through the same triage service as PATCH
 * /findings, so the audit log, the feedback log and a suppression's expiry behave the same.
 */
import { z } from 'zod';
import type { IdentityCtx } from '../context/identity-context';
import { NotFoundError } from '../core/errors';
import { detectionHashes } from './run-detection';
import { triageFinding } from './suppression-expiry';

/** Statuses a bulk resolve moves: the unresolved ones (analysis-api.md "Finding status": open and needs_review). */
const UNRESOLVED = new Set(['open', 'needs_review']);

/** The note a bulk resolve records when the caller gives none. */
export const NO_LONGER_DETECTED_NOTE = "Resolved as fixed: no longer detected in the namespace's latest run";

/** POST /findings/resolve-no-longer-detected body (our addition). */
export const ResolveNoLongerDetectedSchema = z
  .object({
    namespace: z.string().min(1).max(128),
    note: z.string().max(4000).nullable().optional(),
  })
  .strict();

/**
 * POST /findings/resolve-no-longer-detected: every open or needs_review finding of `namespace`
 * that its latest run no longer detects becomes `suppressed` with reason_code `fixed` (verdict
 * confirmed), one triage update each (PATCH /findings semantics: audited finding.status_update,
 * feedback log entry, suppression expiry cleared). Findings already resolved keep their status.
 * Returns `{namespace, resolved: [presented records]}`. Throws NotFoundError (404) for a namespace
 * the org never ingested into.
 */
export async function resolveNoLongerDetected(ctx: IdentityCtx, orgId: string, input: z.infer<typeof ResolveNoLongerDetectedSchema>) {
  const engine = ctx.engine;
  if (!(await engine.stores.resources.namespaceExists(orgId, input.namespace))) throw new NotFoundError(`Namespace '${input.namespace}' not found`);
  const gone = await detectionHashes(engine, orgId, input.namespace, 'no_longer_detected');
  const records = gone.length === 0 ? [] : await engine.stores.findings.forResources(orgId, gone);
  const resolved = [];
  for (const record of records.filter((r) => UNRESOLVED.has(r.status))) {
    resolved.push(
      await triageFinding(ctx, orgId, record.resource_hash, record.rule_id, {
        status: 'suppressed',
        reason_code: 'fixed',
        note: input.note ?? NO_LONGER_DETECTED_NOTE,
      }),
    );
  }
  return { namespace: input.namespace, resolved };
}
