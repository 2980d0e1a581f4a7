import { NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import type { MembershipDoc, UserDoc } from './types';

/** Presenter: identity-api.md "UserInfo" (never hashes, secrets or codes). */
export function presentUser(u: UserDoc) {
  return { user_id: u.user_id, email: u.email, name: u.name, created_at: u.created_at, is_active: u.is_active, two_factor_enabled: u.two_factor.enabled };
}

/**
 * The org a signing-in user lands in: the last scoped org while its membership is active, else
 * the first active membership, else null (identity-api.md POST /auth/session).
 */
export async function landingMembership(ctx: IdentityCtx, user: UserDoc, preferred: string | null = user.last_org_id): Promise<MembershipDoc | null> {
  const rows = (await ctx.engine.stores.memberships.forUser(user.user_id)).filter((m) => m.is_active);
  return rows.find((m) => m.org_id === preferred) ?? rows[0] ?? null;
}

/** An account by id; NotFoundError when unknown. */
export async function requireUser(ctx: IdentityCtx, userId: string): Promise<UserDoc> {
  const user = await ctx.engine.stores.users.get(userId);
  if (!user) throw new NotFoundError('User not found');
  return user;
}

/**
 * PATCH /admin/users/{user_id}: name and/or is_active; deactivation ends every session.
 * 404 unknown. Audited user.account_update.
 */
export async function adminUpdateUser(ctx: IdentityCtx, userId: string, input: { name?: string | null; is_active?: boolean }) {
  const before = await requireUser(ctx, userId);
  const changes = { ...input, updated_at: isoNow(ctx) };
  const after =
    input.is_active === false
      ? await ctx.engine.stores.users.revokeSessions(userId, isoNow(ctx), changes)
      : await ctx.engine.stores.users.update(userId, changes);
  if (!after) throw new NotFoundError('User not found');
  await recordAudit(ctx, {
    orgId: null,
    action: 'user.account_update',
    targetType: 'user',
    targetId: userId,
    before: presentUser(before),
    after: presentUser(after),
  });
  return presentUser(after);
}
