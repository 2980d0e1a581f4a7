import { ConflictError, NotFoundError } from '../core/errors';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { acceptInviteToken } from './invite-service';
import { connectionForEmail } from './sso-service';
import { createExternalUser, type VerifiedIdentity } from './sso-sign-in';
import type { UserDoc } from './types';

/** The platform switches that shape a social sign-in (identity-api.md "Social sign-in settings"). */
export interface SocialPolicy {
  readonly allowSignup: boolean;
  readonly allowAutoLink: boolean;
  /** The current terms version when the operator requires terms, else null. */
  readonly termsVersion: string | null;
}

/** Where a social sign-in ends (the route turns it into one of the spec's redirects). */
export type SocialOutcome =
  | { readonly kind: 'signed_in'; readonly user: UserDoc; readonly orgId: string | null }
  | { readonly kind: 'sso'; readonly orgId: string }
  | { readonly kind: 'error'; readonly code: string };

/**
 * The account a social sign-in lands on (identity-api.md "Social sign-in"; docs/decisions.md):
 * 1. an e-mail whose domain an org holds *verified* for its enabled SSO connection → that org's
 *    SSO start (a pending claim redirects nobody);
 * 2. the provider account already linked → its account (`account_inactive` when deactivated);
 * 3. an account with that e-mail → linked only when auto-link is allowed, the account is not a
 *    superadmin (`account_exists` otherwise: a platform account links only from its own
 *    settings) and the provider says the e-mail is verified (`email_unverified`); an account
 *    already linked to another account of this provider → `identity_in_use`;
 * 4. no account → created (auth_provider social, no password) when sign-up is allowed or an
 *    invitation is carried (`signup_disabled`), the e-mail is verified (`email_unverified`) and
 *    the current terms were accepted (`terms_required`).
 * An invitation carried through start is redeemed for the account (`invite_invalid`). Every
 * refusal is an outcome, never a thrown error: the callback always redirects.
 */
export async function resolveSocialAccount(
  ctx: IdentityCtx,
  provider: string,
  identity: VerifiedIdentity,
  policy: SocialPolicy,
  extras: { invite: string | null; acceptedTerms: string | null },
): Promise<SocialOutcome> {
  const { users, socialIdentities } = ctx.engine.stores;
  const claimedBy = await connectionForEmail(ctx, identity.email);
  if (claimedBy) return { kind: 'sso', orgId: claimedBy.org_id };
  const linked = await socialIdentities.bySubject(provider, identity.subject);
  let user = linked ? await users.get(linked.user_id) : null;
  // An account this sign-in creates is the inviting org's to administer (docs/decisions.md "Org stewardship follows provenance").
  let createdAccount = false;
  if (!user) {
    user = await users.byEmail(identity.email);
    if (user) {
      if (!policy.allowAutoLink || user.is_superadmin) return { kind: 'error', code: 'account_exists' };
      if (identity.emailVerified !== true) return { kind: 'error', code: 'email_unverified' };
    } else {
      if (!policy.allowSignup && !extras.invite) return { kind: 'error', code: 'signup_disabled' };
      if (identity.emailVerified !== true) return { kind: 'error', code: 'email_unverified' };
      if (policy.termsVersion !== null && extras.acceptedTerms !== policy.termsVersion) return { kind: 'error', code: 'terms_required' };
      try {
        user = await createExternalUser(ctx, identity.email, identity.name, 'social');
        createdAccount = true;
      } catch (error) {
        if (error instanceof ConflictError) return { kind: 'error', code: 'account_exists' }; // created meanwhile
        throw error;
      }
    }
    if (!user.is_active) return { kind: 'error', code: 'account_inactive' };
    try {
      await linkIdentity(ctx, user, provider, identity);
    } catch (error) {
      if (error instanceof ConflictError) return { kind: 'error', code: 'identity_in_use' };
      throw error;
    }
  }
  if (!user.is_active) return { kind: 'error', code: 'account_inactive' };
  let orgId: string | null = null;
  if (extras.invite) {
    try {
      orgId = (await acceptInviteToken({ ...ctx, actor: { ...ctx.actor, userId: user.user_id, email: user.email } }, extras.invite, user, { createdAccount }))
        .org_id;
    } catch {
      return { kind: 'error', code: 'invite_invalid' };
    }
  }
  return { kind: 'signed_in', user, orgId };
}

/**
 * Links the provider account to `user` whatever its e-mail (identity-api.md GET
 * /auth/me/identities/{provider}/link). ConflictError (409) when that provider account is
 * linked to another account or the user already has one of this provider.
 */
export async function linkIdentity(ctx: IdentityCtx, user: UserDoc, provider: string, identity: VerifiedIdentity): Promise<void> {
  const existing = await ctx.engine.stores.socialIdentities.bySubject(provider, identity.subject);
  if (existing?.user_id === user.user_id) return;
  try {
    await ctx.engine.stores.socialIdentities.insert({
      user_id: user.user_id,
      provider,
      subject: identity.subject,
      email: identity.email,
      created_at: isoNow(ctx),
    });
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError('This provider account is linked to another account, or a link to this provider exists');
    throw error;
  }
}

/** GET /auth/me/identities: `{identities: [{provider, email, created_at}]}`. */
export async function listIdentities(ctx: IdentityCtx, userId: string) {
  const rows = await ctx.engine.stores.socialIdentities.forUser(userId);
  return { identities: rows.map((r) => ({ provider: r.provider, email: r.email, created_at: r.created_at })) };
}

/**
 * DELETE /auth/me/identities/{provider}: 404 not linked; 409 when it is the account's only way to
 * sign in (no password, not an SSO account, no other linked provider).
 */
export async function unlinkIdentity(ctx: IdentityCtx, user: UserDoc, provider: string): Promise<{ detail: string }> {
  const rows = await ctx.engine.stores.socialIdentities.forUser(user.user_id);
  if (!rows.some((r) => r.provider === provider)) throw new NotFoundError('This provider is not linked');
  const otherWays = user.password_hash !== null || user.auth_provider === 'sso' || rows.some((r) => r.provider !== provider);
  if (!otherWays) throw new ConflictError("This is the account's only way to sign in");
  await ctx.engine.stores.socialIdentities.remove(user.user_id, provider);
  return { detail: `${provider} unlinked` };
}
