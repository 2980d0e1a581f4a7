import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '@planwarden/engine/core/errors';
import { isoNow, type IdentityCtx } from '@planwarden/engine/context/identity-context';
import { hashPassword, sha256Hex, verifyPassword } from '@planwarden/engine/identity/secrets';
import type { OrgRole, UserDoc } from '@planwarden/engine/identity/types';
import { landingMembership, presentUser } from '@planwarden/engine/identity/user-service';
import type { IdentityServices } from './identity';
import { matchTotpStep, newRecoveryCodes, newTotpSecret, provisioningUri } from './totp';

/** A minted session: the identity body and the cookie's token. */
export interface SessionResult {
  readonly body: { user: ReturnType<typeof presentUser>; org_id: string | null; role: OrgRole | null; is_superadmin: boolean };
  readonly token: string;
}

/**
 * Mints a session for `user` in `orgId` (or the landing org) with the membership's role, and
 * records the org as last scoped. The claims are fixed until the next login or switch.
 * `ssoOrgId` marks a session established through that org's SSO connection (oidc-sign-in.ts).
 */
export async function mintSessionFor(
  ids: IdentityServices,
  ctx: IdentityCtx,
  user: UserDoc,
  orgId?: string | null,
  ssoOrgId: string | null = null,
): Promise<SessionResult> {
  const membership = await landingMembership(ctx, user, orgId === undefined ? user.last_org_id : orgId);
  const org = membership?.org_id ?? null;
  if (org !== user.last_org_id) await ctx.engine.stores.users.update(user.user_id, { last_org_id: org, updated_at: isoNow(ctx) });
  const token = await ids.signer.mintSession(
    {
      userId: user.user_id,
      orgId: org,
      role: membership?.role ?? null,
      isSuperadmin: user.is_superadmin,
      epoch: user.session_epoch,
      ssoOrgId: ssoOrgId === org ? ssoOrgId : null,
    },
    ids.config.session.access_ttl_minutes,
  );
  return { body: { user: presentUser(user), org_id: org, role: membership?.role ?? null, is_superadmin: user.is_superadmin }, token };
}

async function sessionUser(ctx: IdentityCtx): Promise<UserDoc> {
  const user = ctx.actor.userId ? await ctx.engine.stores.users.get(ctx.actor.userId) : null;
  if (!user) throw new UnauthorizedError();
  return user;
}

function requireLocal(user: UserDoc): void {
  if (user.auth_provider !== 'local') throw new BadRequestError('The account signs in through an identity provider');
}

/** PATCH /auth/me: `{name}` → UserInfo. */
export async function updateProfile(ctx: IdentityCtx, input: { name: string | null }) {
  const user = await sessionUser(ctx);
  const after = await ctx.engine.stores.users.update(user.user_id, { name: input.name, updated_at: isoNow(ctx) });
  return presentUser(after ?? user);
}

/**
 * POST /auth/me/password: 400 SSO account; 401 wrong current password. Ends every session of
 * the account and returns a replacement session for the caller (same org).
 */
export async function changePassword(
  ids: IdentityServices,
  ctx: IdentityCtx,
  orgId: string | null,
  input: { current_password: string; new_password: string },
): Promise<SessionResult> {
  const user = await sessionUser(ctx);
  requireLocal(user);
  if (!(await verifyPassword(input.current_password, user.password_hash))) throw new UnauthorizedError('Current password is wrong');
  const after = await ctx.engine.stores.users.revokeSessions(user.user_id, isoNow(ctx), { password_hash: await hashPassword(input.new_password) });
  return mintSessionFor(ids, ctx, after ?? user, orgId);
}

/** POST /auth/me/2fa/enroll: a new pending secret (a repeat replaces it). 400 SSO account. */
export async function enrollTwoFactor(ctx: IdentityCtx) {
  const user = await sessionUser(ctx);
  requireLocal(user);
  const secret = newTotpSecret();
  await ctx.engine.stores.users.update(user.user_id, {
    two_factor: { ...user.two_factor, pending_secret: ctx.engine.stores.box.seal(secret) },
    updated_at: isoNow(ctx),
  });
  return { secret_provisioning_uri: provisioningUri(user.email, secret), manual_entry_code: secret };
}

/**
 * POST /auth/me/2fa/confirm: 400 no pending enrollment; 401 wrong code; 10 recovery codes once.
 * The confirming code's time step counts as used (a sign-in needs a later code).
 */
export async function confirmTwoFactor(ctx: IdentityCtx, input: { code: string }) {
  const user = await sessionUser(ctx);
  requireLocal(user);
  const pending = user.two_factor.pending_secret;
  if (!pending) throw new BadRequestError('No pending two-factor enrollment');
  const step = matchTotpStep(input.code, ctx.engine.stores.box.open(pending), ctx.engine.now());
  if (step === null) throw new UnauthorizedError('Invalid code');
  const codes = newRecoveryCodes(10);
  await ctx.engine.stores.users.update(user.user_id, {
    two_factor: { enabled: true, secret: pending, pending_secret: null, recovery_codes: codes.map((c) => sha256Hex(c)), last_totp_step: step },
    updated_at: isoNow(ctx),
  });
  return { recovery_codes: codes };
}

/** POST /auth/me/2fa/disable: 400 not enabled or SSO; 401 wrong current password. */
export async function disableTwoFactor(ctx: IdentityCtx, input: { current_password: string }) {
  const user = await sessionUser(ctx);
  requireLocal(user);
  if (!user.two_factor.enabled) throw new BadRequestError('Two-factor authentication is not enabled');
  if (!(await verifyPassword(input.current_password, user.password_hash))) throw new UnauthorizedError('Current password is wrong');
  await ctx.engine.stores.users.update(user.user_id, {
    two_factor: { enabled: false, secret: null, pending_secret: null, recovery_codes: [] },
    updated_at: isoNow(ctx),
  });
  return { detail: 'Two-factor authentication disabled' };
}

/** GET /auth/me/organizations: `{org_id, name, role}` of the account's active memberships. */
export async function myOrganizations(ctx: IdentityCtx) {
  const user = await sessionUser(ctx);
  const out = [];
  for (const m of await ctx.engine.stores.memberships.forUser(user.user_id)) {
    if (!m.is_active) continue;
    const org = await ctx.engine.stores.orgs.get(m.org_id);
    if (org) out.push({ org_id: org.org_id, name: org.name, role: m.role });
  }
  return out;
}

/** POST /auth/session/switch: 403 not an active member of `orgId`; re-issues the session. */
export async function switchOrganization(ids: IdentityServices, ctx: IdentityCtx, orgId: string): Promise<SessionResult> {
  const user = await sessionUser(ctx);
  const m = await ctx.engine.stores.memberships.get(orgId, user.user_id);
  if (!m?.is_active) throw new ForbiddenError('Not a member of that organization');
  return mintSessionFor(ids, ctx, user, orgId);
}

/** The signed-in account (routes that act on the caller). */
export async function currentUser(ctx: IdentityCtx): Promise<UserDoc> {
  return sessionUser(ctx);
}

/** GET /auth/me's org flags: `organization_locked` and `mfa_required` (human sessions only). */
export async function orgFlags(ctx: IdentityCtx, orgId: string | null, isSession: boolean, twoFactorEnabled: boolean) {
  const org = orgId ? await ctx.engine.stores.orgs.get(orgId) : null;
  if (orgId && !org) throw new NotFoundError('Organization not found');
  return { organization_locked: org?.locked ?? false, mfa_required: Boolean(isSession && org?.require_2fa && !twoFactorEnabled) };
}
