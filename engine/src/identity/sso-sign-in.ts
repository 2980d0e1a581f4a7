import { ConflictError, ForbiddenError } from '../core/errors';
import { assertOrgAdministersAccount } from './account-stewardship';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { insertNewUser } from './registration';
import { domainVerifiedBy } from './sso-domains';
import { emailDomain } from './sso-service';
import type { SsoConnectionDoc } from './sso-store';
import type { MembershipDoc, OrgRole, UserDoc } from './types';

/** What the relying party verified from an ID token (server/src/auth/oidc-client.ts). */
export interface VerifiedIdentity {
  /** Lower-cased e-mail claim. */
  readonly email: string;
  /** The `email_verified` claim; null when the provider did not send it. */
  readonly emailVerified: boolean | null;
  readonly name: string | null;
  /** The `sub` claim. */
  readonly subject: string;
}

/** A new account without a password, signing in through an identity provider. */
export async function createExternalUser(ctx: IdentityCtx, email: string, name: string | null, provider: 'sso' | 'social'): Promise<UserDoc> {
  return insertNewUser(ctx, { email, name, passwordHash: null, authProvider: provider });
}

/**
 * For a domain this org has not verified, an existing account signs in only when it is this
 * org's own: a member the org administers (account-stewardship.ts: the org created the account,
 * it has no active membership elsewhere, it is not a superadmin). Anything wider would let any
 * org's provider mint a session reaching the account's other orgs. ForbiddenError (403)
 * otherwise; a deactivated membership is left to the caller's own 403.
 */
async function assertOwnAccount(ctx: IdentityCtx, membership: MembershipDoc | null, user: UserDoc): Promise<void> {
  const refusal =
    "This e-mail belongs to an existing account that this organization does not administer, and its domain is not verified for this organization's SSO connection; verify the domain to sign such accounts in";
  if (!membership) throw new ForbiddenError(refusal);
  try {
    // 'owner': the role ladder of resets does not apply here, only whose account it is.
    await assertOrgAdministersAccount(ctx, membership, user, 'owner');
  } catch (error) {
    if (error instanceof ForbiddenError) throw new ForbiddenError(refusal);
    throw error;
  }
}

/**
 * Which account an org's SSO sign-in lands on, with its membership (identity-api.md "Single
 * sign-on" callback; docs/decisions.md "SSO account linking", "SSO domain verification"):
 * - `email_verified` false → 403; an e-mail outside `allowed_domains` → 403; the e-mail must be
 *   verified by the provider (true, or the claim absent while the org holds the domain verified);
 * - an existing account is never a superadmin (a tenant's provider must not mint platform
 *   sessions) nor deactivated → 403; it is linked when the org holds the e-mail's domain
 *   verified, else only when it is this org's own account (assertOwnAccount) → 403 otherwise;
 * - otherwise a new account (auth_provider `sso`, no password) is created, and its membership
 *   records `created_account: true`;
 * - a missing membership is created at `default_role`; an existing role is never changed; a
 *   deactivated membership → 403.
 * Returns the account and the role in the org.
 */
export async function resolveSsoAccount(ctx: IdentityCtx, connection: SsoConnectionDoc, identity: VerifiedIdentity): Promise<{ user: UserDoc; role: OrgRole }> {
  const { users, memberships } = ctx.engine.stores;
  const orgId = connection.org_id;
  const domain = emailDomain(identity.email);
  const listed = connection.allowed_domains?.includes(domain) ?? false;
  if (identity.emailVerified === false) throw new ForbiddenError('The identity provider has not verified this e-mail address');
  if (connection.allowed_domains !== null && !listed) throw new ForbiddenError("This e-mail domain is not allowed by the organization's SSO connection");
  const verified = listed && (await domainVerifiedBy(ctx, orgId, domain));
  if (identity.emailVerified !== true && !verified) throw new ForbiddenError('The identity provider has not verified this e-mail address');
  let user = await users.byEmail(identity.email);
  const existing = user ? await memberships.get(orgId, user.user_id) : null;
  const created = user === null;
  if (user) {
    if (user.is_superadmin) throw new ForbiddenError("Platform administrator accounts do not sign in through an organization's SSO");
    if (!user.is_active) throw new ForbiddenError('The account is deactivated');
    if (!verified) await assertOwnAccount(ctx, existing, user);
  } else {
    user = await createExternalUser(ctx, identity.email, identity.name, 'sso');
  }
  if (existing) {
    if (!existing.is_active) throw new ForbiddenError('The membership in this organization is deactivated');
    return { user, role: existing.role };
  }
  const now = isoNow(ctx);
  try {
    await memberships.insert({
      org_id: orgId,
      user_id: user.user_id,
      role: connection.default_role,
      is_active: true,
      created_at: now,
      updated_at: now,
      ...(created ? { created_account: true } : {}),
    });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error; // a concurrent sign-in created it: keep that one
  }
  const membership = await memberships.get(orgId, user.user_id);
  return { user, role: membership?.role ?? connection.default_role };
}
