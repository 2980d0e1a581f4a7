import { BadRequestError, ConflictError, ForbiddenError } from '../core/errors';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { resolveInviteToken, redeemInvite } from './invite-service';
import { DEFAULT_ORG_ID } from '../orgs/org-store';
import { createOrganization, joinOrganization } from './org-service';
import { hashPassword, randomId } from './secrets';
import type { OrgRole, UserDoc } from './types';

export interface RegistrationSettings {
  readonly allowPublicOrgCreation: boolean;
  /** Current terms version when the operator requires terms, else null. */
  readonly termsVersion: string | null;
}

export interface RegisterInput {
  email: string;
  password: string;
  name?: string | null;
  org_name?: string | null;
  invite_token?: string | null;
  accepted_terms_version?: string | null;
}

/** Creates a local account (no membership). ConflictError when the e-mail is registered. */
/**
 * Inserts a new active account (e-mail stored lower-case, as `users.byEmail` looks it up), with
 * no second factor and no org yet; the one constructor of UserDoc for every way in (password,
 * SSO, social sign-in). Throws ConflictError (409) when the e-mail is already registered.
 */
export async function insertNewUser(
  ctx: IdentityCtx,
  fields: { email: string; name: string | null; passwordHash: string | null; authProvider: UserDoc['auth_provider']; isSuperadmin?: boolean },
): Promise<UserDoc> {
  const now = isoNow(ctx);
  const user: UserDoc = {
    user_id: randomId('usr'),
    email: fields.email.toLowerCase(),
    name: fields.name,
    password_hash: fields.passwordHash,
    auth_provider: fields.authProvider,
    is_active: true,
    is_superadmin: fields.isSuperadmin ?? false,
    two_factor: { enabled: false, secret: null, pending_secret: null, recovery_codes: [] },
    session_epoch: 0,
    sessions_revoked_at: null,
    last_org_id: null,
    created_at: now,
    updated_at: now,
  };
  try {
    return await ctx.engine.stores.users.insert(user);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError('E-mail already registered');
    throw error;
  }
}

/** A new password account (scrypt hash). Throws ConflictError (409) for a registered e-mail. */
export async function createLocalUser(
  ctx: IdentityCtx,
  input: { email: string; password: string; name?: string | null; isSuperadmin?: boolean },
): Promise<UserDoc> {
  return insertNewUser(ctx, {
    email: input.email,
    name: input.name ?? null,
    passwordHash: await hashPassword(input.password),
    authProvider: 'local',
    isSuperadmin: input.isSuperadmin,
  });
}

/**
 * POST /auth/register in its three modes (identity-api.md "Registration, login, sessions"):
 * invite_token joins that org at the invite's role; org_name creates an org with role owner;
 * neither creates an org-less account. The org joined or created records that it created the
 * account (`created_account`, account-stewardship.ts). Errors: 400 terms missing/not current;
 * 403 org_name while public org creation is disabled, or an addressed invite for another
 * e-mail; 404 invite unusable; 409 e-mail registered. Returns the user and `{org_id, role}`.
 */
export async function register(
  ctx: IdentityCtx,
  input: RegisterInput,
  settings: RegistrationSettings,
): Promise<{ user: UserDoc; org_id: string | null; role: OrgRole | null }> {
  if (settings.termsVersion !== null && input.accepted_terms_version !== settings.termsVersion) {
    throw new BadRequestError('The current terms version must be accepted');
  }
  const invite = input.invite_token ? await resolveInviteToken(ctx, input.invite_token) : null;
  if (!invite && input.org_name && !settings.allowPublicOrgCreation) throw new ForbiddenError('Public organization creation is disabled');
  if (invite && invite.email !== null && invite.email !== input.email.toLowerCase()) throw new ForbiddenError('This invitation is addressed to someone else');
  if (await ctx.engine.stores.users.byEmail(input.email)) throw new ConflictError('E-mail already registered');
  const user = await createLocalUser(ctx, input);
  // From here on the new account is the actor (audit of the invite redemption and org seeding).
  const asUser: IdentityCtx = { ...ctx, actor: { ...ctx.actor, userId: user.user_id, keyId: null, email: user.email } };
  // The org joined here created the account (docs/decisions.md "Org stewardship follows provenance").
  if (invite) {
    const joined = await redeemInvite(asUser, invite, user, { createdAccount: true });
    return { user, ...joined };
  }
  if (input.org_name) {
    const { org } = await createOrganization(asUser, { name: input.org_name, ownerUserId: user.user_id });
    await ctx.engine.stores.memberships.markCreatedAccount(org.org_id, user.user_id);
    return { user, org_id: org.org_id, role: 'owner' };
  }
  return { user, org_id: null, role: null };
}

/**
 * The configured default admin (identity-api.md "Superadmin bootstrap"), run at every start:
 * creates the superadmin account once (skipped when e-mail or password is unset, the password is
 * shorter than 8 characters, or the e-mail already exists), then makes that account, when it is
 * a superadmin, owner of the default organization while that org has no active owner, so the
 * first administrator can sign in and create keys there on any store (docs/decisions.md "The
 * configured admin owns the default organization"). A membership already present, or another
 * active owner, is left as it is: a restart never undoes a role change made since. Safe to run
 * on several replicas at once. Returns whether this call created the account.
 */
export async function ensureDefaultAdmin(ctx: IdentityCtx, email: string | null, password: string | null): Promise<boolean> {
  if (!email || !password || password.length < 8) return false;
  let created = false;
  let user = await ctx.engine.stores.users.byEmail(email);
  if (!user) {
    try {
      user = await createLocalUser(ctx, { email, password, name: null, isSuperadmin: true });
      created = true;
    } catch (error) {
      // Another replica created it meanwhile.
      if (!(error instanceof ConflictError)) throw error;
      user = await ctx.engine.stores.users.byEmail(email);
    }
  }
  // Only the superadmin this bootstrap made (or one made since): an account someone registered
  // under the configured e-mail beforehand gains nothing.
  if (user?.is_superadmin) await ownDefaultOrgWhenOwnerless(ctx, user);
  return created;
}

/** Joins `user` to the default org as owner when it exists, has no active owner and no membership of theirs. */
async function ownDefaultOrgWhenOwnerless(ctx: IdentityCtx, user: UserDoc): Promise<void> {
  const { orgs, memberships } = ctx.engine.stores;
  if (!(await orgs.get(DEFAULT_ORG_ID))) return;
  if (await memberships.get(DEFAULT_ORG_ID, user.user_id)) return;
  if ((await memberships.countActiveOwners(DEFAULT_ORG_ID)) > 0) return;
  await joinOrganization(ctx, DEFAULT_ORG_ID, user.user_id, 'owner');
}

/** Makes an account superadmin (or not) and ends its sessions. Returns null when unknown. */
export async function setSuperadmin(ctx: IdentityCtx, userId: string, enabled: boolean): Promise<{ before: UserDoc; after: UserDoc } | null> {
  const before = await ctx.engine.stores.users.get(userId);
  if (!before) return null;
  const after = await ctx.engine.stores.users.revokeSessions(userId, isoNow(ctx), { is_superadmin: enabled });
  return after ? { before, after } : null;
}
