import type { EngineContext } from '../context/engine-context';

/**
 * Which fairness lane of the template sandbox (template-sandbox-queue.ts) a render queues in:
 * the account responsible for it, so an account that creates several orgs still has one share
 * of the sandbox (a lane per org let one account with four orgs push another org's preview
 * from 340 ms to 6 s). A service key counts as the account that created it (following keys
 * created by keys); a key of the operator's, the anonymous caller of auth-off mode, or a key
 * whose creator is gone count as their org.
 */

/** Who asks for a render: the caller's account or key (IdentityCtx['actor'] fits). */
export interface LaneActor {
  readonly userId: string | null;
  readonly keyId: string | null;
}

/** Keys created by keys are followed this far; a longer chain counts as its org. */
const MAX_KEY_HOPS = 8;

/** The lane of `actor` rendering for `orgId`: `user:<user_id>` or `org:<org_id>`. */
export async function sandboxLane(ctx: Pick<EngineContext, 'stores'>, orgId: string, actor: LaneActor): Promise<string> {
  if (actor.userId) return `user:${actor.userId}`;
  return creatorLane(ctx, orgId, actor.keyId);
}

/**
 * The lane of whoever `who` names in `orgId`: a user id, an e-mail (a report link's
 * `created_by`), or a key id (its creator, recursively); anything else is `org:<orgId>`.
 */
export async function creatorLane(ctx: Pick<EngineContext, 'stores'>, orgId: string, who: string | null | undefined): Promise<string> {
  let current = who ?? null;
  for (let hop = 0; current !== null && hop < MAX_KEY_HOPS; hop += 1) {
    if (current.includes('@')) {
      const user = await ctx.stores.users.byEmail(current.toLowerCase());
      return user ? `user:${user.user_id}` : `org:${orgId}`;
    }
    const key = await ctx.stores.apiKeys.get(orgId, current);
    if (!key) {
      const user = await ctx.stores.users.get(current);
      return user ? `user:${user.user_id}` : `org:${orgId}`;
    }
    current = key.created_by;
  }
  return `org:${orgId}`;
}
