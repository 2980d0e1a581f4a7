import { ForbiddenError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { joinOrganization } from './org-service';
import { randomId, randomToken, sha256Hex } from './secrets';
import type { InviteDoc, OrgRole, UserDoc } from './types';

/** Presenter for the invitation list: identity-api.md "Invitation" without token or hash. */
export function presentInvite(i: InviteDoc) {
  return {
    invite_id: i.invite_id,
    org_id: i.org_id,
    role: i.role,
    email: i.email,
    created_by: i.created_by,
    created_at: i.created_at,
    expires_at: i.expires_at,
    revoked: i.revoked,
  };
}

function usable(i: InviteDoc | null, now: string): i is InviteDoc {
  if (!i || i.revoked || i.expires_at <= now) return false;
  return !(i.email !== null && i.accepted_by.length > 0);
}

/**
 * POST /orgs/{org_id}/invites: an open (no e-mail) or addressed invitation valid for the org's
 * `invite_link_ttl_hours`. Returns the token and `join_url` once; only the SHA-256 is stored.
 * `joinBase` is the dashboard's base URL ('' gives a relative link). Audited invite.create.
 */
export async function createInvite(ctx: IdentityCtx, orgId: string, input: { role: OrgRole; email: string | null }, joinBase: string) {
  const org = await ctx.engine.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  const token = randomToken('pwi_');
  const now = ctx.engine.now();
  const doc: InviteDoc = {
    org_id: orgId,
    invite_id: randomId('inv'),
    token_hash: sha256Hex(token),
    role: input.role,
    email: input.email ? input.email.toLowerCase() : null,
    created_by: ctx.actor.userId ?? ctx.actor.keyId,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + org.invite_link_ttl_hours * 3_600_000).toISOString(),
    revoked: false,
    accepted_by: [],
  };
  await ctx.engine.stores.invites.insert(doc);
  const presented = presentInvite(doc);
  await recordAudit(ctx, { orgId, action: 'invite.create', targetType: 'org_invite', targetId: doc.invite_id, before: null, after: presented });
  return { ...presented, token, join_url: `${joinBase.replace(/\/+$/, '')}/invite/${token}` };
}

/** Every invitation ever made in the org, revoked and expired included, newest first. */
export async function listInvites(ctx: IdentityCtx, orgId: string) {
  return (await ctx.engine.stores.invites.list(orgId)).map(presentInvite);
}

/** DELETE /orgs/{org_id}/invites/{invite_id}: 404 unknown; memberships unaffected. Audited invite.revoke. */
export async function revokeInvite(ctx: IdentityCtx, orgId: string, inviteId: string): Promise<void> {
  const before = await ctx.engine.stores.invites.get(orgId, inviteId);
  if (!before) throw new NotFoundError('Invitation not found');
  const after = await ctx.engine.stores.invites.update(orgId, inviteId, { revoked: true });
  await recordAudit(ctx, {
    orgId,
    action: 'invite.revoke',
    targetType: 'org_invite',
    targetId: inviteId,
    before: presentInvite(before),
    after: after ? presentInvite(after) : null,
  });
}

/** A usable invitation by raw token; NotFoundError for unknown, expired, revoked or consumed alike. */
export async function resolveInviteToken(ctx: IdentityCtx, token: string): Promise<InviteDoc> {
  const invite = await ctx.engine.stores.invites.unsafeByTokenHash(sha256Hex(token));
  if (!usable(invite, isoNow(ctx))) throw new NotFoundError('Invitation not found');
  return invite;
}

/** GET /invite/{token}: `{org_name, role, expires_at, addressed}` (never the address). */
export async function previewInvite(ctx: IdentityCtx, token: string) {
  const invite = await resolveInviteToken(ctx, token);
  const org = await ctx.engine.stores.orgs.get(invite.org_id);
  if (!org) throw new NotFoundError('Invitation not found');
  return { org_name: org.name, role: invite.role, expires_at: invite.expires_at, addressed: invite.email !== null };
}

/** How an invitation is redeemed. */
export interface RedeemOptions {
  /**
   * True when `user` was created by this very sign-up with the invitation (registration with
   * invite_token, or a social sign-in creating the account from the invitation link): the
   * membership then records that the org created the account (`created_account`,
   * account-stewardship.ts). An existing account accepting an invitation stays its holder's.
   */
  readonly createdAccount?: boolean;
}

/**
 * Redeems `invite` for `user`: 403 addressed to another e-mail; an existing member keeps their
 * role. The org becomes the user's last scoped org. Returns `{org_id, role}` (the member's role).
 */
export async function redeemInvite(
  ctx: IdentityCtx,
  invite: InviteDoc,
  user: UserDoc,
  options: RedeemOptions = {},
): Promise<{ org_id: string; role: OrgRole }> {
  if (invite.email !== null && invite.email !== user.email) throw new ForbiddenError('This invitation is addressed to someone else');
  const membership = await joinOrganization(ctx, invite.org_id, user.user_id, invite.role);
  if (options.createdAccount) await ctx.engine.stores.memberships.markCreatedAccount(invite.org_id, user.user_id);
  await ctx.engine.stores.invites.update(invite.org_id, invite.invite_id, { accepted_by: [...invite.accepted_by, user.user_id] });
  await ctx.engine.stores.users.update(user.user_id, { last_org_id: invite.org_id, updated_at: isoNow(ctx) });
  return { org_id: invite.org_id, role: membership.role };
}

/**
 * POST /invite/{token}/accept for a signed-in user (404 unusable, 403 someone else's); also the
 * invitation of a social sign-in, which passes `{createdAccount: true}` when it created the account.
 */
export async function acceptInviteToken(ctx: IdentityCtx, token: string, user: UserDoc, options: RedeemOptions = {}) {
  return redeemInvite(ctx, await resolveInviteToken(ctx, token), user, options);
}

/** GET /auth/me/invitations: usable invitations addressed to the account's e-mail. */
export async function pendingInvitations(ctx: IdentityCtx, user: UserDoc) {
  const now = isoNow(ctx);
  const rows = (await ctx.engine.stores.invites.unsafeAddressedTo(user.email)).filter((i) => usable(i, now));
  const out = [];
  for (const i of rows) {
    const org = await ctx.engine.stores.orgs.get(i.org_id);
    if (org) out.push({ invite_id: i.invite_id, org_name: org.name, role: i.role, created_at: i.created_at, expires_at: i.expires_at });
  }
  return out;
}

/** POST /auth/me/invitations/{invite_id}/accept: 404 unless on the account's pending list. */
export async function acceptPendingInvitation(ctx: IdentityCtx, user: UserDoc, inviteId: string) {
  const now = isoNow(ctx);
  const invite = (await ctx.engine.stores.invites.unsafeAddressedTo(user.email)).find((i) => i.invite_id === inviteId && usable(i, now));
  if (!invite) throw new NotFoundError('Invitation not found');
  return redeemInvite(ctx, invite, user);
}
