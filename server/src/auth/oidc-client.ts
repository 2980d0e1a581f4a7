import * as oidc from 'openid-client';
import { BadRequestError, UpstreamError } from '@planwarden/engine/core/errors';
import { egressFetch, type EgressPolicy } from '@planwarden/engine/net/egress';
import type { VerifiedIdentity } from '@planwarden/engine/identity/sso-sign-in';

/**
 * The relying-party side of OpenID Connect (OIDC Core 1.0 authorization code flow with PKCE,
 * RFC 7636), on `openid-client` v6. Used by org SSO and by social sign-in. Every request to the
 * provider (discovery, token, JWKS) goes through the egress policy (engine/src/net/egress.ts):
 * issuers are set by tenants.
 */

/** A provider as the relying party knows it. */
export interface RelyingParty {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | null;
}

/** Transport settings: the egress policy and the per-request timeout (ms). */
export interface OidcTransport {
  readonly egress: EgressPolicy;
  readonly timeoutMs: number;
}

/** The per-attempt secrets kept in the state cookie between start and callback. */
export interface AuthorizationChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** A failure to reach the provider (DNS, connection, timeout, refused by the egress policy). */
class ProviderUnreachable extends Error {}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** An openid-client `customFetch` on top of `egressFetch` (no redirects, checked addresses only). */
function egressCustomFetch(transport: OidcTransport): oidc.CustomFetch {
  return async (url, options) => {
    const body =
      options.body === undefined || options.body === null
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : options.body instanceof URLSearchParams
            ? options.body.toString()
            : Buffer.from(options.body as ArrayBuffer);
    try {
      const res = await egressFetch(url, { method: options.method, headers: options.headers, body, timeoutMs: transport.timeoutMs }, transport.egress);
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      return new Response(NULL_BODY_STATUSES.has(res.status) ? null : new Uint8Array(res.body), { status: res.status, headers });
    } catch (error) {
      throw new ProviderUnreachable(error instanceof Error ? error.message : String(error));
    }
  };
}

function unreachable(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof ProviderUnreachable) return true;
  }
  return false;
}

/**
 * Discovers the provider (OIDC Discovery 1.0) and returns the client configuration, with ID
 * token signatures checked against the issuer's JWKS (`enableNonRepudiationChecks`); http
 * issuers are accepted only because the issuer was already checked by the egress policy and
 * the https rule at save time (sso-service.ts checkIssuer). UpstreamError (502) when the
 * provider cannot be reached or answers no valid discovery document.
 */
export async function discoverProvider(rp: RelyingParty, transport: OidcTransport): Promise<oidc.Configuration> {
  const issuer = new URL(rp.issuer);
  const auth = rp.clientSecret ? oidc.ClientSecretPost(rp.clientSecret) : oidc.None();
  const execute = [oidc.enableNonRepudiationChecks, ...(issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [])];
  try {
    const config = await oidc.discovery(issuer, rp.clientId, undefined, auth, {
      execute,
      [oidc.customFetch]: egressCustomFetch(transport),
      timeout: Math.ceil(transport.timeoutMs / 1000),
    });
    config[oidc.customFetch] = egressCustomFetch(transport);
    return config;
  } catch (error) {
    throw new UpstreamError(
      `The identity provider could not be reached or gave no valid discovery document${unreachable(error) ? '' : ` (${error instanceof Error ? error.message : 'error'})`}`,
    );
  }
}

/**
 * Fresh state, nonce and PKCE verifier (S256) and the authorization URL carrying them
 * (`scope=openid email profile`). `extra` adds parameters (e.g. `prompt`).
 */
export async function authorizationRequest(
  config: oidc.Configuration,
  redirectUri: string,
  extra: Record<string, string> = {},
): Promise<{ url: string; checks: AuthorizationChecks }> {
  const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
    ...extra,
  });
  return { url: url.href, checks };
}

/**
 * Redeems the authorization response at `callbackUrl` (the redirect URI with the provider's
 * query): checks state, exchanges the code with the PKCE verifier, and validates the ID token
 * (issuer, audience, expiry, nonce, signature from the JWKS). Returns the verified identity.
 * BadRequestError (400) for an error response, a refused exchange (replayed or foreign code,
 * wrong verifier) or an invalid ID token or one without an e-mail; UpstreamError (502) when the
 * provider cannot be reached.
 */
export async function redeemAuthorization(config: oidc.Configuration, callbackUrl: URL, checks: AuthorizationChecks): Promise<VerifiedIdentity> {
  let claims: oidc.IDToken | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (error) {
    if (unreachable(error)) throw new UpstreamError('The identity provider could not be reached');
    throw new BadRequestError(`The sign-in could not be completed: ${error instanceof Error ? error.message : 'invalid response'}`);
  }
  const email = typeof claims?.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!claims || !email.includes('@')) throw new BadRequestError('The identity provider gave no e-mail address');
  const verified = claims.email_verified;
  return {
    email,
    emailVerified: verified === true || verified === 'true' ? true : verified === false || verified === 'false' ? false : null,
    name: typeof claims.name === 'string' ? claims.name : null,
    subject: claims.sub,
  };
}
