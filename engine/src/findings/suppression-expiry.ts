/**
 * Time-boxed suppression (docs/decisions.md "Suppression expiry"), an addition to
 * analysis-api.md "Findings and review feedback": PATCH /findings/{resource_hash}/{rule_id} may
 * carry `expires_at` with status `suppressed`; once that instant passes the finding is open
 * again (the spec's "any → PATCH status → any" transition, made by the service on the
 * suppressor's behalf). Lapsed suppressions are reopened when the org's findings are next read
 * or analysed (reopenLapsedSuppressions), so no reader ever sees a lapsed one still suppressed.
 */
import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import type { IdentityCtx } from '../context/identity-context';
import { NotFoundError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { feedbackActor } from './feedback-service';
import { presentFinding, UpdateFindingSchema, updateFindingStatus } from './finding-service';

/** PATCH body: the spec's fields plus `expires_at` (ISO-8601 with offset; only with status suppressed). */
export const TriageFindingSchema = UpdateFindingSchema.extend({
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type TriageFindingInput = z.infer<typeof TriageFindingSchema>;

const SYSTEM_ACTOR = { userId: null, keyId: null, email: null, isSuperadmin: false, ip: null, requestId: null } as const;

/**
 * Reopens the org's findings whose suppression lapsed at or before the context's clock: each one
 * still `suppressed` becomes `open` (updated_by null: the service, audited
 * finding.suppression_expired); a finding triaged again since (any path) keeps its status. The expiry
 * rows are removed either way. Reads only the lapsed rows (index org_expires). Returns how many
 * findings reopened.
 */
export async function reopenLapsedSuppressions(ctx: EngineContext, orgId: string): Promise<number> {
  const now = ctx.now().toISOString();
  let reopened = 0;
  for (const row of await ctx.stores.suppressions.lapsed(orgId, now)) {
    const current = await ctx.stores.findings.get(orgId, row.resource_hash, row.rule_id);
    // Only the suppression the expiry was set with: a finding triaged again since keeps its newer status.
    if (current?.status === 'suppressed' && (current.updated_at ?? '') <= row.created_at) {
      const after = await ctx.stores.findings.update(orgId, row.resource_hash, row.rule_id, { status: 'open', updated_by: null, updated_at: now });
      if (after) {
        reopened += 1;
        await recordAudit(
          { engine: ctx, actor: SYSTEM_ACTOR },
          {
            orgId,
            action: 'finding.suppression_expired',
            targetType: 'finding',
            targetId: `${row.resource_hash}/${row.rule_id}`,
            before: { ...presentFinding(current), suppressed_until: row.expires_at },
            after: presentFinding(after),
          },
        );
      }
    }
    await ctx.stores.suppressions.clear(orgId, row.resource_hash, row.rule_id);
  }
  return reopened;
}

/** Runs `read` (a read of the org's findings: list, summary, ranking) after reopenLapsedSuppressions, so it never sees a lapsed suppression. */
export async function afterLapsedReopened<T>(ctx: EngineContext, orgId: string, read: () => Promise<T>): Promise<T> {
  await reopenLapsedSuppressions(ctx, orgId);
  return read();
}

/**
 * PATCH /findings/{resource_hash}/{rule_id} with the suppression expiry: validates `expires_at`
 * (only with status suppressed, and later than now: else ValidationError 422), applies the
 * spec's update (updateFindingStatus: 404 for an unknown pair), then records or clears the
 * expiry. Returns the presented record plus `suppressed_until` (ISO or null).
 */
export async function triageFinding(ctx: IdentityCtx, orgId: string, resourceHash: string, ruleId: string, input: TriageFindingInput) {
  const { expires_at: expiresAt, ...update } = input;
  const now = ctx.engine.now();
  if (expiresAt != null) {
    if (update.status !== 'suppressed') throw new ValidationError('expires_at is only allowed with status suppressed');
    if (Date.parse(expiresAt) <= now.getTime()) throw new ValidationError('expires_at must be in the future');
  }
  const presented = await updateFindingStatus(ctx, orgId, resourceHash, ruleId, update);
  const until = expiresAt != null ? new Date(expiresAt).toISOString() : null;
  // Stamped with the record's updated_at: a later triage by any path (MCP, code-host reply) supersedes the expiry.
  if (until) await ctx.engine.stores.suppressions.set(orgId, resourceHash, ruleId, until, feedbackActor(ctx), presented.updated_at ?? now.toISOString());
  else await ctx.engine.stores.suppressions.clear(orgId, resourceHash, ruleId);
  return { ...presented, suppressed_until: until };
}

/**
 * GET /findings/{resource_hash}/{rule_id} (our addition, for a finding's own page): the
 * presented record plus `suppressed_until` and `namespaces` (the namespaces holding its
 * resource). Reopens lapsed suppressions first. Throws NotFoundError (404) for an unknown pair,
 * another org's included.
 */
export async function getFinding(ctx: EngineContext, orgId: string, resourceHash: string, ruleId: string) {
  await reopenLapsedSuppressions(ctx, orgId);
  const record = await ctx.stores.findings.get(orgId, resourceHash, ruleId);
  if (!record) throw new NotFoundError('No finding for this resource_hash and rule_id');
  const [suppression, namespaces] = await Promise.all([
    record.status === 'suppressed' ? ctx.stores.suppressions.get(orgId, resourceHash, ruleId) : null,
    ctx.stores.resources.namespacesOf(orgId, resourceHash),
  ]);
  return { ...presentFinding(record), suppressed_until: suppression?.expires_at ?? null, namespaces: namespaces.sort() };
}
