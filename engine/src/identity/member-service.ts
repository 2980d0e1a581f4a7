import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { recordAudit } from '../audit/record';
import { isoNow, type IdentityCtx } from './context';
import { hashPassword, randomPassword } from './secrets';
import type { MembershipDoc, OrgRole, UserDoc } from './types';

/** identity-api.md "Member entry". */
export interface MemberEntry {
  user_id: string; email: string; name: string | null; role: OrgRole; is_active: boolean;
  account_active: boolean; created_at: string; teams: string[];
}

function entry(m: MembershipDoc, u: UserDoc | undefined, teams: string[]): MemberEntry {
  return {
    user_id: m.user_id, email: u?.email ?? '', name: u?.name ?? null, role: m.role, is_active: m.is_active,
    account_active: u?.is_active ?? false, created_at: m.created_at, teams,
  };
}

function snapshot(m: MembershipDoc) {
  return { user_id: m.user_id, role: m.role, is_active: m.is_active };
}

/** Every member of the org with account flags and team names (GET /orgs/{org_id}/members). */
export async function listMembers(ctx: IdentityCtx, orgId: string): Promise<MemberEntry[]> {
  const { memberships, users, teams } = ctx.engine.stores;
  const rows = await memberships.list(orgId);
  const [accounts, teamRows, teamMembers] = await Promise.all([users.many(rows.map((r) => r.user_id)), teams.list(orgId), teams.membershipsOf(orgId)]);
  const byId = new Map(accounts.map((u) => [u.user_id, u]));
  const teamName = new Map(teamRows.map((t) => [t.team_id, t.name]));
  return rows.map((m) => entry(m, byId.get(m.user_id), teamMembers.filter((t) => t.user_id === m.user_id).map((t) => teamName.get(t.team_id) ?? t.team_id)));
}

/** One member's entry; NotFoundError when not a member of the org. */
export async function getMember(ctx: IdentityCtx, orgId: string, userId: string): Promise<MemberEntry> {
  const all = await listMembers(ctx, orgId);
  const found = all.find((m) => m.user_id === userId);
  if (!found) throw new NotFoundError('Member not found');
  return found;
}

/**
 * POST /orgs/{org_id}/members: adds an already-registered account by e-mail. 404 unknown
 * e-mail; 409 already a member; 422 (schema) owner role. Returns `{user_id, org_id, role}`.
 */
export async function addMember(ctx: IdentityCtx, orgId: string, input: { email: string; role: OrgRole }) {
  const user = await ctx.engine.stores.users.byEmail(input.email);
  if (!user) throw new NotFoundError('No account with that e-mail');
  if (await ctx.engine.stores.memberships.get(orgId, user.user_id)) throw new ConflictError('Already a member');
  const now = isoNow(ctx);
  const m = await ctx.engine.stores.memberships.insert({ org_id: orgId, user_id: user.user_id, role: input.role, is_active: true, created_at: now, updated_at: now });
  await recordAudit(ctx, { orgId, action: 'member.add', targetType: 'membership', targetId: user.user_id, before: null, after: snapshot(m) });
  return { user_id: user.user_id, org_id: orgId, role: m.role };
}

async function target(ctx: IdentityCtx, orgId: string, userId: string): Promise<MembershipDoc> {
  if (ctx.actor.userId !== null && ctx.actor.userId === userId) throw new BadRequestError('This action cannot target your own membership');
  const m = await ctx.engine.stores.memberships.get(orgId, userId);
  if (!m) throw new NotFoundError('Member not found');
  return m;
}

async function assertNotSoleOwner(ctx: IdentityCtx, m: MembershipDoc): Promise<void> {
  if (m.role === 'owner' && m.is_active && (await ctx.engine.stores.memberships.countActiveOwners(m.org_id)) <= 1) {
    throw new ConflictError('The organization\'s only owner cannot be demoted, deactivated, removed or leave');
  }
}

/**
 * PATCH a membership's role and/or is_active (identity-api.md "Member guardrails"): 400 self;
 * 404 not a member; 409 would demote or deactivate the sole owner. Owner as a role is refused
 * by the schema (422). Audited member.role_update.
 */
export async function updateMember(ctx: IdentityCtx, orgId: string, userId: string, input: { role?: Exclude<OrgRole, 'owner'>; is_active?: boolean }): Promise<MemberEntry> {
  const m = await target(ctx, orgId, userId);
  const demotes = input.role !== undefined && input.role !== m.role;
  if (demotes || input.is_active === false) await assertNotSoleOwner(ctx, m);
  const updated = await ctx.engine.stores.memberships.update(orgId, userId, { ...input, updated_at: isoNow(ctx) });
  if (!updated) throw new NotFoundError('Member not found');
  await recordAudit(ctx, { orgId, action: 'member.role_update', targetType: 'membership', targetId: userId, before: snapshot(m), after: snapshot(updated) });
  return getMember(ctx, orgId, userId);
}

/** DELETE a membership (and its team memberships): 400 self; 404; 409 sole owner. Audited member.remove. */
export async function removeMember(ctx: IdentityCtx, orgId: string, userId: string): Promise<void> {
  const m = await target(ctx, orgId, userId);
  await assertNotSoleOwner(ctx, m);
  await ctx.engine.stores.teams.removeUserEverywhere(orgId, userId);
  await ctx.engine.stores.memberships.remove(orgId, userId);
  await recordAudit(ctx, { orgId, action: 'member.remove', targetType: 'membership', targetId: userId, before: snapshot(m), after: null });
}

/**
 * The caller leaves `orgId` (their current org): 403 not a member; 409 sole owner. Returns
 * the org they land in next (first other active membership, or null). Audited member.remove.
 */
export async function leaveOrganization(ctx: IdentityCtx, userId: string, orgId: string): Promise<{ left_org_id: string; org_id: string | null; role: OrgRole | null }> {
  const { memberships, users } = ctx.engine.stores;
  const m = await memberships.get(orgId, userId);
  if (!m) throw new ForbiddenError('Not a member of this organization');
  await assertNotSoleOwner(ctx, m);
  await ctx.engine.stores.teams.removeUserEverywhere(orgId, userId);
  await memberships.remove(orgId, userId);
  const next = (await memberships.forUser(userId)).find((r) => r.is_active) ?? null;
  await users.update(userId, { last_org_id: next?.org_id ?? null, updated_at: isoNow(ctx) });
  await recordAudit(ctx, { orgId, action: 'member.remove', targetType: 'membership', targetId: userId, before: snapshot(m), after: null });
  return { left_org_id: orgId, org_id: next?.org_id ?? null, role: next?.role ?? null };
}

async function localAccount(ctx: IdentityCtx, orgId: string | null, userId: string): Promise<UserDoc> {
  if (orgId !== null) await target(ctx, orgId, userId);
  const user = await ctx.engine.stores.users.get(userId);
  if (!user) throw new NotFoundError('Member not found');
  return user;
}

/**
 * Resets a member's password to a random one returned once, ending every session of the
 * account (identity-api.md "Session"). 400 self or SSO/social account; 404. `orgId` null is the
 * account-wide admin variant. Audited member.password_reset / user.password_reset.
 */
export async function resetPassword(ctx: IdentityCtx, orgId: string | null, userId: string): Promise<{ temporary_password: string }> {
  const user = await localAccount(ctx, orgId, userId);
  if (user.auth_provider !== 'local') throw new BadRequestError('The account signs in through an identity provider');
  const temporary = randomPassword();
  await ctx.engine.stores.users.revokeSessions(userId, isoNow(ctx), { password_hash: await hashPassword(temporary) });
  await recordAudit(ctx, { orgId, action: orgId ? 'member.password_reset' : 'user.password_reset', targetType: 'user', targetId: userId, before: null, after: { password_reset: true } });
  return { temporary_password: temporary };
}

/**
 * Clears a member's 2FA (secret and recovery codes) and ends their sessions. 400 self; 404.
 * Audited member.2fa_reset / user.2fa_reset.
 */
export async function resetTwoFactor(ctx: IdentityCtx, orgId: string | null, userId: string): Promise<{ detail: string }> {
  const user = await localAccount(ctx, orgId, userId);
  await ctx.engine.stores.users.revokeSessions(userId, isoNow(ctx), { two_factor: { enabled: false, secret: null, pending_secret: null, recovery_codes: [] } });
  await recordAudit(ctx, {
    orgId, action: orgId ? 'member.2fa_reset' : 'user.2fa_reset', targetType: 'user', targetId: userId,
    before: { two_factor_enabled: user.two_factor.enabled }, after: { two_factor_enabled: false },
  });
  return { detail: 'Two-factor authentication was reset' };
}
