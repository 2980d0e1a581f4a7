import { ConflictError, NotFoundError, BadRequestError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { assertMayPlaceInOrg } from './account-stewardship';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { applyScimPatch, scimBoolean, type PatchOperation } from './scim-patch';
import { listResponse, SCIM, type ScimListQuery } from './scim-resources';
import type { ScimConfigDoc } from './scim-store';
import { createExternalUser } from './sso-sign-in';
import type { MembershipDoc, UserDoc } from './types';

/**
 * SCIM Users (RFC 7643 §4.1) over the org's memberships (identity-api.md "SCIM"). A User's
 * `id` is the account's user_id, `userName` its e-mail, `active` the org membership's flag.
 * SCIM writes org-scoped facts only (membership active, externalId, groups); account-wide
 * fields (e-mail, name) are set only when SCIM creates the account (docs/decisions.md "SCIM").
 */

/** What POST/PUT /Users carry that we read. */
export interface ScimUserInput {
  userName?: string;
  externalId?: string | null;
  active?: unknown;
  displayName?: string;
  name?: { formatted?: string; givenName?: string; familyName?: string };
  emails?: { value?: string; primary?: boolean; type?: string }[];
}

/** Presenter: the SCIM User of one membership. `base` is the tenant URL (…/scim/v2/{org_id}). */
export function presentScimUser(user: UserDoc, m: MembershipDoc, externalId: string | null, base: string) {
  return {
    schemas: [SCIM.user],
    id: user.user_id,
    ...(externalId ? { externalId } : {}),
    userName: user.email,
    name: { formatted: user.name ?? user.email },
    displayName: user.name ?? user.email,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: m.is_active,
    meta: { resourceType: 'User', created: m.created_at, lastModified: m.updated_at, location: `${base}/Users/${user.user_id}` },
  };
}

type ScimUser = ReturnType<typeof presentScimUser>;

async function loadAll(ctx: IdentityCtx, orgId: string, base: string): Promise<ScimUser[]> {
  const { memberships, users, scim } = ctx.engine.stores;
  const rows = await memberships.list(orgId);
  const [accounts, externalIds] = await Promise.all([users.many(rows.map((r) => r.user_id)), scim.externalIds(orgId, 'user')]);
  const byId = new Map(accounts.map((u) => [u.user_id, u]));
  return rows.filter((m) => byId.has(m.user_id)).map((m) => presentScimUser(byId.get(m.user_id) as UserDoc, m, externalIds.get(m.user_id) ?? null, base));
}

async function requireMember(ctx: IdentityCtx, orgId: string, userId: string): Promise<{ user: UserDoc; membership: MembershipDoc }> {
  const membership = await ctx.engine.stores.memberships.get(orgId, userId);
  const user = membership ? await ctx.engine.stores.users.get(userId) : null;
  if (!membership || !user) throw new NotFoundError('User not found');
  return { user, membership };
}

async function present(ctx: IdentityCtx, orgId: string, userId: string, base: string): Promise<ScimUser> {
  const { user, membership } = await requireMember(ctx, orgId, userId);
  return presentScimUser(user, membership, (await ctx.engine.stores.scim.externalIds(orgId, 'user')).get(userId) ?? null, base);
}

/** GET /Users: ListResponse filtered (userName, emails.value, externalId, displayName, active...) and paged. */
export async function listScimUsers(ctx: IdentityCtx, config: ScimConfigDoc, query: ScimListQuery, base: string) {
  return listResponse(await loadAll(ctx, config.org_id, base), query);
}

/** GET /Users/{id}; 404 not a member of the org. */
export async function getScimUser(ctx: IdentityCtx, config: ScimConfigDoc, userId: string, base: string) {
  return present(ctx, config.org_id, userId, base);
}

/**
 * Sets the membership's active flag: 409 deactivating an owner; 403 reactivating a superadmin
 * account (assertMayPlaceInOrg); audited scim.user.deactivated / scim.user.reactivated when it
 * changes.
 */
async function setActive(ctx: IdentityCtx, orgId: string, user: UserDoc, membership: MembershipDoc, active: boolean): Promise<void> {
  if (membership.is_active === active) return;
  if (!active && membership.role === 'owner') throw new ConflictError('The organization owner cannot be deactivated through SCIM', { scimType: 'mutability' });
  if (active) assertMayPlaceInOrg(user);
  await ctx.engine.stores.memberships.update(orgId, membership.user_id, { is_active: active, updated_at: isoNow(ctx) });
  await recordAudit(ctx, {
    orgId,
    action: active ? 'scim.user.reactivated' : 'scim.user.deactivated',
    targetType: 'user',
    targetId: membership.user_id,
    before: { is_active: membership.is_active },
    after: { is_active: active },
  });
}

function activeOf(value: unknown): boolean | null {
  if (value === undefined) return null;
  const parsed = scimBoolean(value);
  if (parsed === null) throw new BadRequestError('active: must be a boolean', { scimType: 'invalidValue' });
  return parsed;
}

/** The e-mail of a User body: the primary (else first) emails value, else userName. */
function emailOf(input: ScimUserInput): string {
  const emails = input.emails ?? [];
  const chosen = (emails.find((e) => e.primary) ?? emails[0])?.value ?? input.userName ?? '';
  const email = chosen.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new BadRequestError('userName or emails must carry an e-mail address', { scimType: 'invalidValue' });
  return email;
}

/**
 * POST /Users: links the existing account with that e-mail or creates one (auth_provider sso,
 * no password), and its membership at default_role; idempotent by e-mail (an existing member
 * answers `created: false` with the same resource). 403 placing or reactivating a superadmin
 * account (assertMayPlaceInOrg). The membership records `created_account` only when SCIM
 * created the account: a linked existing account stays its holder's (account-stewardship.ts).
 * Audited scim.user.provisioned.
 */
export async function createScimUser(
  ctx: IdentityCtx,
  config: ScimConfigDoc,
  input: ScimUserInput,
  base: string,
): Promise<{ created: boolean; resource: ScimUser }> {
  const { users, memberships, scim } = ctx.engine.stores;
  const orgId = config.org_id;
  const email = emailOf(input);
  const name = input.displayName ?? input.name?.formatted ?? ([input.name?.givenName, input.name?.familyName].filter(Boolean).join(' ') || null);
  const active = activeOf(input.active);
  const found = await users.byEmail(email);
  const existing = found ? await memberships.get(orgId, found.user_id) : null;
  if (found && !existing) assertMayPlaceInOrg(found);
  const user = found ?? (await createExternalUser(ctx, email, name, 'sso'));
  const setExternalId = () => (input.externalId === undefined ? Promise.resolve() : scim.setExternalId(orgId, 'user', user.user_id, input.externalId ?? null));
  if (existing) {
    if (active !== null) await setActive(ctx, orgId, user, existing, active);
    await setExternalId();
    return { created: false, resource: await present(ctx, orgId, user.user_id, base) };
  }
  const now = isoNow(ctx);
  const membership: MembershipDoc = {
    org_id: orgId,
    user_id: user.user_id,
    role: config.default_role,
    is_active: active ?? true,
    created_account: found === null,
    created_at: now,
    updated_at: now,
  };
  try {
    await memberships.insert(membership);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    await setExternalId(); // a concurrent POST created the membership: answer as for an existing member
    return { created: false, resource: await present(ctx, orgId, user.user_id, base) };
  }
  await setExternalId();
  await recordAudit(ctx, {
    orgId,
    action: 'scim.user.provisioned',
    targetType: 'user',
    targetId: user.user_id,
    before: null,
    after: { email, role: membership.role, is_active: membership.is_active },
  });
  return { created: true, resource: await present(ctx, orgId, user.user_id, base) };
}

/** Applies the org-scoped attributes of a patched or replaced resource (active, externalId). */
async function applyResource(
  ctx: IdentityCtx,
  orgId: string,
  before: ScimUser,
  after: Record<string, unknown>,
  user: UserDoc,
  membership: MembershipDoc,
): Promise<void> {
  const externalId = after.externalId === undefined ? null : after.externalId;
  if (externalId !== (before.externalId ?? null)) {
    if (externalId !== null && typeof externalId !== 'string') throw new BadRequestError('externalId: must be a string', { scimType: 'invalidValue' });
    await ctx.engine.stores.scim.setExternalId(orgId, 'user', before.id, externalId);
  }
  const active = activeOf(after.active);
  if (active !== null) await setActive(ctx, orgId, user, membership, active);
}

/**
 * PATCH /Users/{id}: PatchOp; `active` false deactivates the membership (409 owner), true
 * reactivates (403 a superadmin account). 404.
 */
export async function patchScimUser(ctx: IdentityCtx, config: ScimConfigDoc, userId: string, operations: readonly PatchOperation[], base: string) {
  const { user, membership } = await requireMember(ctx, config.org_id, userId);
  const before = await present(ctx, config.org_id, userId, base);
  await applyResource(ctx, config.org_id, before, applyScimPatch(before, operations) as Record<string, unknown>, user, membership);
  return present(ctx, config.org_id, userId, base);
}

/**
 * PUT /Users/{id}: replaces the org-scoped attributes (active defaults to true, externalId to
 * none). 404; 409 owner; 403 reactivating a superadmin account.
 */
export async function replaceScimUser(ctx: IdentityCtx, config: ScimConfigDoc, userId: string, input: ScimUserInput, base: string) {
  const { user, membership } = await requireMember(ctx, config.org_id, userId);
  const before = await present(ctx, config.org_id, userId, base);
  await applyResource(ctx, config.org_id, before, { externalId: input.externalId ?? null, active: input.active ?? true }, user, membership);
  return present(ctx, config.org_id, userId, base);
}

/** DELETE /Users/{id}: removes the membership and its team places only (the account stays). 404; 409 owner. */
export async function deleteScimUser(ctx: IdentityCtx, config: ScimConfigDoc, userId: string): Promise<void> {
  const { memberships, teams, scim } = ctx.engine.stores;
  const { user, membership } = await requireMember(ctx, config.org_id, userId);
  if (membership.role === 'owner') throw new ConflictError('The organization owner cannot be removed through SCIM', { scimType: 'mutability' });
  await teams.removeUserEverywhere(config.org_id, userId);
  await memberships.remove(config.org_id, userId);
  await scim.removeLink(config.org_id, 'user', userId);
  await recordAudit(ctx, {
    orgId: config.org_id,
    action: 'scim.user.deprovisioned',
    targetType: 'user',
    targetId: userId,
    before: { email: user.email, role: membership.role, is_active: membership.is_active },
    after: null,
  });
}
