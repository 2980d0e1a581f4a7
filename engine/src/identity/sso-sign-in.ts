import { ConflictError, ForbiddenError } from '../errors';
import { isoNow, type IdentityCtx } from './context';
import { insertNewUser } from './registration';
import { emailDomain } from './sso-service';
import type { SsoConnectionDoc } from './sso-store';
import type { OrgRole, UserDoc } from './types';

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
 * Which account an org's SSO sign-in lands on, with its membership (identity-api.md "Single
 * sign-on" callback; docs/decisions.md "SSO account linking"):
 * - `email_verified` false → 403; an e-mail outside `allowed_domains` → 403;
 * - an existing account is linked by e-mail only when the e-mail is verified by the provider
 *   (true, or absent while its domain is one the connection claimed) and the account is already
 *   a member of the org or its domain is claimed by this connection; never a superadmin
 *   (a tenant's provider must not mint platform sessions) → 403 otherwise;
 * - a deactivated account or membership → 403;
 * - otherwise a new account (auth_provider `sso`, no password) is created;
 * - a missing membership is created at `default_role`; an existing role is never changed.
 * Returns the account and the role in the org.
 */
export async function resolveSsoAccount(ctx: IdentityCtx, connection: SsoConnectionDoc, identity: VerifiedIdentity): Promise<{ user: UserDoc; role: OrgRole }> {
  const { users, memberships } = ctx.engine.stores;
  const orgId = connection.org_id;
  const domain = emailDomain(identity.email);
  const claimed = connection.allowed_domains?.includes(domain) ?? false;
  if (identity.emailVerified === false) throw new ForbiddenError('The identity provider has not verified this e-mail address');
  if (connection.allowed_domains !== null && !claimed) throw new ForbiddenError('This e-mail domain is not allowed by the organization\'s SSO connection');
  let user = await users.byEmail(identity.email);
  const existing = user ? await memberships.get(orgId, user.user_id) : null;
  if (user) {
    const verified = identity.emailVerified === true || (identity.emailVerified === null && claimed);
    if (!verified || (!existing && !claimed)) throw new ForbiddenError('This e-mail belongs to an account the organization\'s SSO connection may not sign in');
    if (user.is_superadmin) throw new ForbiddenError('Platform administrator accounts do not sign in through an organization\'s SSO');
    if (!user.is_active) throw new ForbiddenError('The account is deactivated');
  } else {
    if (identity.emailVerified === null && !claimed) throw new ForbiddenError('The identity provider has not verified this e-mail address');
    user = await createExternalUser(ctx, identity.email, identity.name, 'sso');
  }
  if (existing) {
    if (!existing.is_active) throw new ForbiddenError('The membership in this organization is deactivated');
    return { user, role: existing.role };
  }
  const now = isoNow(ctx);
  try {
    await memberships.insert({ org_id: orgId, user_id: user.user_id, role: connection.default_role, is_active: true, created_at: now, updated_at: now });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error; // a concurrent sign-in created it: keep that one
  }
  const membership = await memberships.get(orgId, user.user_id);
  return { user, role: membership?.role ?? connection.default_role };
}
