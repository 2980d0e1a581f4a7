import type { Request } from 'express';
import { AppError, NotFoundError, UpstreamError } from '@planwarden/engine/core/errors';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import { recordAudit } from '@planwarden/engine/audit/record';
import type { IdentityCtx } from '@planwarden/engine/context/identity-context';
import { connectionForEmail } from '@planwarden/engine/identity/sso-service';
import { linkIdentity, resolveSocialAccount } from '@planwarden/engine/identity/social-service';
import type { VerifiedIdentity } from '@planwarden/engine/identity/sso-sign-in';
import type { Config } from '../config/config';
import { mintSessionFor, type SessionResult } from './account-service';
import { secureCookies, type IdentityServices } from './identity';
import { authorizationRequest, discoverProvider, redeemAuthorization, type RelyingParty } from './oidc-client';
import { callbackUrl, dashboardUrl, oidcTransport, presentedCookie, redirectUri, stateCookie } from './oidc-flow';

/** DESIGN.md: the two social providers. */
export const SOCIAL_PROVIDERS = ['google', 'microsoft'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];
const LABELS: Record<SocialProvider, string> = { google: 'Google', microsoft: 'Microsoft' };
export const OAUTH_STATE_COOKIE = 'oauth_state';
/** identity-api.md "Limits": social sign-in state cookie, 10 minutes. */
const STATE_MINUTES = 10;

/** Why a flow was started: sign in, link to the signed-in account, or the superadmin round-trip test. */
type Mode = 'signin' | 'link' | 'test';

/** The provider's relying-party settings, whether every switch is on, and whether its credentials are set. */
function providerSettings(config: Config, provider: SocialProvider): { offered: boolean; rp: RelyingParty | null } {
  const s = config.social_login;
  const [enabled, clientId, clientSecret] =
    provider === 'google'
      ? [s.google_enabled, s.google_client_id, s.google_client_secret]
      : [s.microsoft_enabled, s.microsoft_client_id, s.microsoft_client_secret];
  const issuer = provider === 'google' ? s.google_issuer : s.microsoft_issuer.replace('{tenant}', encodeURIComponent(s.microsoft_tenant));
  const rp = clientId && clientSecret ? { issuer, clientId, clientSecret } : null;
  return { offered: s.enabled && enabled && rp !== null, rp };
}

/** GET /auth/providers: `{providers: [{id, label}], allow_signup}`, only providers with every switch and credential set. */
export function offeredProviders(config: Config) {
  return {
    providers: SOCIAL_PROVIDERS.filter((p) => providerSettings(config, p).offered).map((id) => ({ id, label: LABELS[id] })),
    allow_signup: config.social_login.allow_signup,
  };
}

const callbackPath = (provider: SocialProvider) => `/auth/oauth/${provider}/callback`;

/**
 * Starts a flow: 307 target (authorization request with PKCE S256, nonce, state) and the
 * `oauth_state` cookie (10 minutes) carrying mode, provider and extras. 404 provider not offered
 * (the test mode needs only credentials, and without them lands on the sign-in settings page with
 * `test=not_configured` and no cookie); 502 discovery unreachable.
 */
export async function startSocial(
  ids: IdentityServices,
  engine: EngineContext,
  req: Request,
  provider: SocialProvider,
  mode: Mode,
  extras: Record<string, string | null> = {},
) {
  const { offered, rp } = providerSettings(ids.config, provider);
  // The superadmin test lands on the sign-in settings page whatever happens, like its callback.
  if (!rp && mode === 'test') return { location: failure(ids, mode, provider, 'not_configured').location, cookie: null };
  if (!rp || (mode !== 'test' && !offered)) throw new NotFoundError(`Sign-in with ${provider} is not enabled`);
  const config = await discoverProvider(rp, oidcTransport(ids.config, engine));
  const { url, checks } = await authorizationRequest(
    config,
    redirectUri(ids.config, req, callbackPath(provider)),
    mode === 'test' ? { prompt: 'select_account' } : {},
  );
  const token = await ids.signer.mintState(OAUTH_STATE_COOKIE, { provider, mode, ...extras, ...checks }, STATE_MINUTES);
  return { location: url, cookie: stateCookie(OAUTH_STATE_COOKIE, token, `/api/v1/auth/oauth/${provider}/callback`, STATE_MINUTES, secureCookies(ids.config)) };
}

/** Where a callback ends: a dashboard path (always a redirect) and, for a sign-in, the session. */
export interface SocialLanding {
  readonly location: string;
  readonly session?: SessionResult;
}

function failure(ids: IdentityServices, mode: Mode, provider: SocialProvider, code: string, detail?: string): SocialLanding {
  if (mode === 'test') {
    return {
      location: dashboardUrl(ids.config, `/admin/settings/sign-in?${new URLSearchParams({ tab: provider, test: code, ...(detail ? { detail } : {}) })}`),
    };
  }
  return { location: dashboardUrl(ids.config, `${mode === 'link' ? '/account' : '/login'}?oauth_error=${encodeURIComponent(code)}`) };
}

/** The spec's code for a failure thrown by discovery or redemption. */
function codeOf(error: unknown, step: 'discovery' | 'exchange'): string {
  if (error instanceof UpstreamError) return step === 'discovery' ? 'discovery_failed' : 'provider_error';
  if (error instanceof AppError && /e-mail/.test(error.message)) return 'email_missing';
  return step === 'exchange' && error instanceof AppError && /state|nonce|token|JWT|signature|claim/i.test(error.message)
    ? 'id_token_invalid'
    : 'token_exchange_failed';
}

/**
 * GET /auth/oauth/{provider}/callback: always a redirect, never an error body (identity-api.md
 * "Social sign-in"). Sign-in: `/overview`, `/onboarding`, `/login#mfa_token=...` (TOTP), the
 * SSO start of the org holding the e-mail's domain verified, or `/login?oauth_error=<code>`.
 * Link: `/account?linked=<p>` or `/account?oauth_error=<code>`. Test:
 * `/admin/settings/sign-in?tab=<p>&test=<result>`, nothing created or linked, audited
 * social_login.test.
 */
export async function finishSocial(
  ids: IdentityServices,
  engine: EngineContext,
  ctx: IdentityCtx,
  req: Request,
  provider: SocialProvider,
): Promise<SocialLanding> {
  const token = presentedCookie(req, OAUTH_STATE_COOKIE);
  const data = token ? await ids.signer.verifyState(token, OAUTH_STATE_COOKIE) : null;
  const mode = (data?.mode as Mode | undefined) ?? 'signin';
  if (!data || data.provider !== provider || req.query.state !== data.state) return failure(ids, mode, provider, 'invalid_state');
  if (typeof req.query.error === 'string')
    return failure(ids, mode, provider, req.query.error === 'access_denied' ? 'cancelled' : 'provider_error', req.query.error);
  const { rp } = providerSettings(ids.config, provider);
  if (!rp) return failure(ids, mode, provider, 'not_configured');
  let identity: VerifiedIdentity;
  try {
    const config = await discoverProvider(rp, oidcTransport(ids.config, engine));
    try {
      identity = await redeemAuthorization(config, callbackUrl(ids.config, req, callbackPath(provider)), {
        state: String(data.state),
        nonce: String(data.nonce),
        codeVerifier: String(data.codeVerifier),
      });
    } catch (error) {
      return failure(ids, mode, provider, codeOf(error, 'exchange'), error instanceof Error ? error.message.slice(0, 200) : undefined);
    }
  } catch (error) {
    return failure(ids, mode, provider, codeOf(error, 'discovery'));
  }
  if (mode === 'test') {
    const claimed = await connectionForEmail(ctx, identity.email);
    if (identity.emailVerified === false) return failure(ids, mode, provider, 'email_unverified');
    const actor = { ...ctx, actor: { ...ctx.actor, userId: typeof data.user === 'string' ? data.user : null } };
    await recordAudit(actor, {
      orgId: null,
      action: 'social_login.test',
      targetType: 'social_login',
      targetId: provider,
      before: null,
      after: { provider, result: 'ok', email: identity.email },
    });
    const params = new URLSearchParams({
      tab: provider,
      test: 'ok',
      email: identity.email,
      live: providerSettings(ids.config, provider).offered ? '1' : '0',
      ...(claimed ? { warning: 'sso_domain' } : {}),
    });
    return { location: dashboardUrl(ids.config, `/admin/settings/sign-in?${params}`) };
  }
  if (mode === 'link') {
    const user = typeof data.user === 'string' ? await ctx.engine.stores.users.get(data.user) : null;
    if (!user?.is_active) return failure(ids, mode, provider, 'account_inactive');
    try {
      await linkIdentity(ctx, user, provider, identity);
    } catch {
      return failure(ids, mode, provider, 'identity_in_use');
    }
    return { location: dashboardUrl(ids.config, `/account?linked=${provider}`) };
  }
  const s = ids.config.social_login;
  const termsVersion = ids.config.registration.terms_url ? ids.config.registration.terms_version : null;
  const outcome = await resolveSocialAccount(
    ctx,
    provider,
    identity,
    { allowSignup: s.allow_signup, allowAutoLink: s.allow_auto_link, termsVersion },
    {
      invite: typeof data.invite === 'string' ? data.invite : null,
      acceptedTerms: typeof data.terms === 'string' ? data.terms : null,
    },
  );
  if (outcome.kind === 'error') return failure(ids, mode, provider, outcome.code);
  if (outcome.kind === 'sso') return { location: `/api/v1/auth/sso/${encodeURIComponent(outcome.orgId)}/start` };
  if (outcome.user.two_factor.enabled) {
    return { location: dashboardUrl(ids.config, `/login#mfa_token=${await ids.signer.mintMfa(outcome.user.user_id, outcome.user.session_epoch)}`) };
  }
  const session = await mintSessionFor(ids, ctx, outcome.user, outcome.orgId ?? undefined);
  return { location: dashboardUrl(ids.config, session.body.org_id ? '/overview' : '/onboarding'), session };
}
