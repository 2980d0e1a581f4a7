import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '@planwarden/engine/errors';
import { isoNow, type IdentityCtx } from '@planwarden/engine/identity/context';
import { hashPassword, sha256Hex, verifyPassword } from '@planwarden/engine/identity/secrets';
import type { OrgRole, UserDoc } from '@planwarden/engine/identity/types';
import { landingMembership, presentUser } from '@planwarden/engine/identity/user-service';
import type { IdentityServices } from './identity';
import { checkTotp, newRecoveryCodes, newTotpSecret, provisioningUri } from './totp';

/** A minted session: the identity body and the cookie's token. */
export interface SessionResult {
  readonly body: { user: ReturnType<typeof presentUser>; org_id: string | null; role: OrgRole | null; is_superadmin: boolean };
  readonly token: string;
}

/**
 * Mints a session for `user` in `orgId` (or the landing org) with the membership's role, and
 * records the org as last scoped. The claims are fixed until the next login or switch.
 */
export async function mintSessionFor(ids: IdentityServices, ctx: IdentityCtx, user: UserDoc, orgId?: string | null): Promise<SessionResult> {
  const membership = await landingMembership(ctx, user, orgId === undefined ? user.last_org_id : orgId);
  const org = membership?.org_id ?? null;
  if (org !== user.last_org_id) await ctx.engine.stores.users.update(user.user_id, { last_org_id: org, updated_at: isoNow(ctx) });
  const token = await ids.signer.mintSession(
    { userId: user.user_id, orgId: org, role: membership?.role ?? null, isSuperadmin: user.is_superadmin, epoch: user.session_epoch },
    ids.config.session.access_ttl_minutes,
  );
  return { body: { user: presentUser(user), org_id: org, role: membership?.role ?? null, is_superadmin: user.is_superadmin }, token };
}

/**
 * POST /auth/session: password login. 401 bad credentials or inactive account (same message);
 * with 2FA enabled, `{mfa_token, methods}` and no session. Failures count per account and per
 * source IP (429 over the threshold). A locked or 2FA-requiring org does not block login.
 */
export async function passwordLogin(ids: IdentityServices, ctx: IdentityCtx, input: { email: string; password: string }): Promise<SessionResult | { mfa: { mfa_token: string; methods: string[] } }> {
  const account = input.email.toLowerCase();
  await ids.guard.check('ip', ctx.actor.ip);
  await ids.guard.check('login', account);
  const user = await ctx.engine.stores.users.byEmail(account);
  const ok = await verifyPassword(input.password, user?.password_hash ?? null);
  if (!user || !ok || !user.is_active) {
    await ids.guard.fail('login', account);
    await ids.guard.fail('ip', ctx.actor.ip);
    throw new UnauthorizedError('Invalid e-mail or password');
  }
  await ids.guard.reset('login', account);
  if (user.two_factor.enabled) {
    return { mfa: { mfa_token: await ids.signer.mintMfa(user.user_id, user.session_epoch), methods: ['totp', 'recovery_code'] } };
  }
  return mintSessionFor(ids, ctx, user);
}

/**
 * POST /auth/session/2fa: the code is tried as the current TOTP, then as an unused recovery
 * code (consumed). 401 expired/invalid token or wrong code; attempts count per account.
 */
export async function secondFactorLogin(ids: IdentityServices, ctx: IdentityCtx, input: { mfa_token: string; code: string }): Promise<SessionResult> {
  await ids.guard.check('ip', ctx.actor.ip);
  const claims = await ids.signer.verifyMfa(input.mfa_token);
  const user = claims ? await ctx.engine.stores.users.get(claims.userId) : null;
  if (!claims || !user || !user.is_active || user.session_epoch !== claims.epoch || !user.two_factor.enabled) {
    await ids.guard.fail('ip', ctx.actor.ip);
    throw new UnauthorizedError('The sign-in challenge expired or is invalid');
  }
  await ids.guard.check('second_factor', user.user_id);
  if (!(await consumeSecondFactor(ctx, user, input.code))) {
    await ids.guard.fail('second_factor', user.user_id);
    await ids.guard.fail('ip', ctx.actor.ip);
    throw new UnauthorizedError('Invalid code');
  }
  await ids.guard.reset('second_factor', user.user_id);
  return mintSessionFor(ids, ctx, user);
}

async function consumeSecondFactor(ctx: IdentityCtx, user: UserDoc, code: string): Promise<boolean> {
  const secret = user.two_factor.secret ? ctx.engine.stores.box.open(user.two_factor.secret) : null;
  if (secret && checkTotp(code, secret, ctx.engine.now())) return true;
  const hash = sha256Hex(code.trim().toLowerCase());
  if (!user.two_factor.recovery_codes.includes(hash)) return false;
  await ctx.engine.stores.users.update(user.user_id, {
    two_factor: { ...user.two_factor, recovery_codes: user.two_factor.recovery_codes.filter((c) => c !== hash) },
    updated_at: isoNow(ctx),
  });
  return true;
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
export async function changePassword(ids: IdentityServices, ctx: IdentityCtx, orgId: string | null, input: { current_password: string; new_password: string }): Promise<SessionResult> {
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
  await ctx.engine.stores.users.update(user.user_id, { two_factor: { ...user.two_factor, pending_secret: ctx.engine.stores.box.seal(secret) }, updated_at: isoNow(ctx) });
  return { secret_provisioning_uri: provisioningUri(user.email, secret), manual_entry_code: secret };
}

/** POST /auth/me/2fa/confirm: 400 no pending enrollment; 401 wrong code; 10 recovery codes once. */
export async function confirmTwoFactor(ctx: IdentityCtx, input: { code: string }) {
  const user = await sessionUser(ctx);
  requireLocal(user);
  const pending = user.two_factor.pending_secret;
  if (!pending) throw new BadRequestError('No pending two-factor enrollment');
  if (!checkTotp(input.code, ctx.engine.stores.box.open(pending), ctx.engine.now())) throw new UnauthorizedError('Invalid code');
  const codes = newRecoveryCodes(10);
  await ctx.engine.stores.users.update(user.user_id, {
    two_factor: { enabled: true, secret: pending, pending_secret: null, recovery_codes: codes.map((c) => sha256Hex(c)) },
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
  await ctx.engine.stores.users.update(user.user_id, { two_factor: { enabled: false, secret: null, pending_secret: null, recovery_codes: [] }, updated_at: isoNow(ctx) });
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
  if (!m || !m.is_active) throw new ForbiddenError('Not a member of that organization');
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
