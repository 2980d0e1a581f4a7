import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { assertMayPlaceInOrg, assertOrgAdministersAccount } from './account-stewardship';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { hashPassword, randomPassword } from './secrets';
import type { MembershipDoc, OrgRole, UserDoc } from './types';

/** identity-api.md "Member entry". */
export interface MemberEntry {
  user_id: string;
  email: string;
  name: string | null;
  role: OrgRole;
  is_active: boolean;
  account_active: boolean;
  created_at: string;
  teams: string[];
}

function entry(m: MembershipDoc, u: UserDoc | undefined, teams: string[]): MemberEntry {
  return {
    user_id: m.user_id,
    email: u?.email ?? '',
    name: u?.name ?? null,
    role: m.role,
    is_active: m.is_active,
    account_active: u?.is_active ?? false,
    created_at: m.created_at,
    teams,
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
  return rows.map((m) =>
    entry(
      m,
      byId.get(m.user_id),
      teamMembers.filter((t) => t.user_id === m.user_id).map((t) => teamName.get(t.team_id) ?? t.team_id),
    ),
  );
}

/** One member's entry; NotFoundError when not a member of the org. */
export async function getMember(ctx: IdentityCtx, orgId: string, userId: string): Promise<MemberEntry> {
  const all = await listMembers(ctx, orgId);
  const found = all.find((m) => m.user_id === userId);
  if (!found) throw new NotFoundError('Member not found');
  return found;
}

/**
 * POST /orgs/{org_id}/members: adds an already-registered account by e-mail. 403 a superadmin
 * account (assertMayPlaceInOrg); 404 unknown e-mail; 409 already a member; 422 (schema) owner
 * role. Returns `{user_id, org_id, role}`. The membership is marked `added_by_email` and not
 * `created_account`: the account did not choose the org, so the org never administers it (no
 * org resets of its password or 2FA; account-stewardship.ts).
 */
export async function addMember(ctx: IdentityCtx, orgId: string, input: { email: string; role: OrgRole }) {
  const user = await ctx.engine.stores.users.byEmail(input.email);
  if (!user) throw new NotFoundError('No account with that e-mail');
  if (await ctx.engine.stores.memberships.get(orgId, user.user_id)) throw new ConflictError('Already a member');
  assertMayPlaceInOrg(user);
  const now = isoNow(ctx);
  const m = await ctx.engine.stores.memberships.insert({
    org_id: orgId,
    user_id: user.user_id,
    role: input.role,
    is_active: true,
    added_by_email: true,
    created_account: false,
    created_at: now,
    updated_at: now,
  });
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
    throw new ConflictError("The organization's only owner cannot be demoted, deactivated, removed or leave");
  }
}

/**
 * PATCH a membership's role and/or is_active (identity-api.md "Member guardrails"): 400 self;
 * 404 not a member; 409 would demote or deactivate the sole owner. Owner as a role is refused
 * by the schema (422). Audited member.role_update.
 */
export async function updateMember(
  ctx: IdentityCtx,
  orgId: string,
  userId: string,
  input: { role?: Exclude<OrgRole, 'owner'>; is_active?: boolean },
): Promise<MemberEntry> {
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
export async function leaveOrganization(
  ctx: IdentityCtx,
  userId: string,
  orgId: string,
): Promise<{ left_org_id: string; org_id: string | null; role: OrgRole | null }> {
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

async function account(ctx: IdentityCtx, userId: string): Promise<UserDoc> {
  const user = await ctx.engine.stores.users.get(userId);
  if (!user) throw new NotFoundError('Member not found');
  return user;
}

async function localAccount(ctx: IdentityCtx, orgId: string | null, userId: string): Promise<UserDoc> {
  if (orgId !== null) await target(ctx, orgId, userId);
  return account(ctx, userId);
}

/** An org admin's reset target: a member (400 self, 404) the org administers (403 otherwise). */
async function administeredAccount(ctx: IdentityCtx, orgId: string, userId: string, callerRole: OrgRole): Promise<UserDoc> {
  const membership = await target(ctx, orgId, userId);
  const user = await account(ctx, userId);
  await assertOrgAdministersAccount(ctx, membership, user, callerRole);
  return user;
}

async function setTemporaryPassword(ctx: IdentityCtx, orgId: string | null, user: UserDoc): Promise<{ temporary_password: string }> {
  if (user.auth_provider !== 'local') throw new BadRequestError('The account signs in through an identity provider');
  const temporary = randomPassword();
  await ctx.engine.stores.users.revokeSessions(user.user_id, isoNow(ctx), { password_hash: await hashPassword(temporary) });
  await recordAudit(ctx, {
    orgId,
    action: orgId ? 'member.password_reset' : 'user.password_reset',
    targetType: 'user',
    targetId: user.user_id,
    before: null,
    after: { password_reset: true },
  });
  return { temporary_password: temporary };
}

async function clearTwoFactor(ctx: IdentityCtx, orgId: string | null, user: UserDoc): Promise<{ detail: string }> {
  await ctx.engine.stores.users.revokeSessions(user.user_id, isoNow(ctx), {
    two_factor: { enabled: false, secret: null, pending_secret: null, recovery_codes: [] },
  });
  await recordAudit(ctx, {
    orgId,
    action: orgId ? 'member.2fa_reset' : 'user.2fa_reset',
    targetType: 'user',
    targetId: user.user_id,
    before: { two_factor_enabled: user.two_factor.enabled },
    after: { two_factor_enabled: false },
  });
  return { detail: 'Two-factor authentication was reset' };
}

/**
 * A platform administrator's password reset (the /admin mirrors only: no stewardship check):
 * a random password returned once, every session of the account ended (identity-api.md
 * "Session"). `orgId` names the org of the member mirror (400 self, 404 not a member), null the
 * account-wide variant (404 unknown account). 400 SSO/social account. Audited
 * member.password_reset / user.password_reset. Org routes use `orgResetPassword`.
 */
export async function resetPassword(ctx: IdentityCtx, orgId: string | null, userId: string): Promise<{ temporary_password: string }> {
  return setTemporaryPassword(ctx, orgId, await localAccount(ctx, orgId, userId));
}

/**
 * A platform administrator's 2FA reset (the /admin mirrors only): clears the secret and
 * recovery codes and ends the account's sessions. 400 self; 404. Audited member.2fa_reset /
 * user.2fa_reset. Org routes use `orgResetTwoFactor`.
 */
export async function resetTwoFactor(ctx: IdentityCtx, orgId: string | null, userId: string): Promise<{ detail: string }> {
  return clearTwoFactor(ctx, orgId, await localAccount(ctx, orgId, userId));
}

/**
 * POST /orgs/{org_id}/members/{user_id}/reset-password by an org admin whose effective role is
 * `callerRole`: as `resetPassword`, but only for an account the org administers
 * (account-stewardship.ts), else 403 naming why. 400 self or SSO account; 404 not a member.
 */
export async function orgResetPassword(ctx: IdentityCtx, orgId: string, userId: string, callerRole: OrgRole): Promise<{ temporary_password: string }> {
  return setTemporaryPassword(ctx, orgId, await administeredAccount(ctx, orgId, userId, callerRole));
}

/**
 * POST /orgs/{org_id}/members/{user_id}/reset-2fa (or 2fa-reset) by an org admin at
 * `callerRole`: as `resetTwoFactor`, only for an account the org administers, else 403.
 */
export async function orgResetTwoFactor(ctx: IdentityCtx, orgId: string, userId: string, callerRole: OrgRole): Promise<{ detail: string }> {
  return clearTwoFactor(ctx, orgId, await administeredAccount(ctx, orgId, userId, callerRole));
}
