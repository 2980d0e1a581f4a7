import type { Request } from 'express';
import { BadRequestError } from '@planwarden/engine/core/errors';
import type { IdentityCtx } from '@planwarden/engine/context/identity-context';
import { enabledConnection } from '@planwarden/engine/identity/sso-service';
import { resolveSsoAccount } from '@planwarden/engine/identity/sso-sign-in';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import { dnsTxtLookup, type TxtLookup } from '@planwarden/engine/net/dns-txt';
import type { Config } from '../config/config';
import { mintSessionFor, type SessionResult } from './account-service';
import { secureCookies, type IdentityServices } from './identity';
import { authorizationRequest, discoverProvider, redeemAuthorization, type RelyingParty } from './oidc-client';
import { callbackUrl, oidcTransport, presentedCookie, redirectUri, stateCookie } from './oidc-flow';

export const SSO_STATE_COOKIE = 'sso_state';
export const SSO_CALLBACK_PATH = '/auth/sso/callback';
const COOKIE_PATH = `/api/v1${SSO_CALLBACK_PATH}`;

async function relyingParty(ctx: IdentityCtx, orgId: string) {
  const { connection, clientSecret } = await enabledConnection(ctx, orgId);
  const rp: RelyingParty = { issuer: connection.issuer, clientId: connection.client_id, clientSecret };
  return { connection, rp };
}

/**
 * GET /auth/sso/{org_id}/start (identity-api.md "Single sign-on"): discovers the org's provider
 * and answers where to send the browser (authorization request with PKCE S256, nonce and state)
 * and the `sso_state` cookie (signed, `sso.state_ttl_minutes`) holding the org, state, nonce and
 * verifier. 404 no enabled connection; 502 provider unreachable.
 */
export async function startSso(
  ids: IdentityServices,
  engine: EngineContext,
  ctx: IdentityCtx,
  req: Request,
  orgId: string,
): Promise<{ location: string; cookie: string }> {
  const { rp } = await relyingParty(ctx, orgId);
  const config = await discoverProvider(rp, oidcTransport(ids.config, engine));
  const { url, checks } = await authorizationRequest(config, redirectUri(ids.config, req, SSO_CALLBACK_PATH));
  const ttl = ids.config.sso.state_ttl_minutes;
  const token = await ids.signer.mintState(SSO_STATE_COOKIE, { org: orgId, ...checks }, ttl);
  return { location: url, cookie: stateCookie(SSO_STATE_COOKIE, token, COOKIE_PATH, ttl, secureCookies(ids.config)) };
}

/** The checks of a valid `sso_state` cookie whose state matches the query's, else 400. */
async function stateOf(ids: IdentityServices, req: Request) {
  const token = presentedCookie(req, SSO_STATE_COOKIE);
  const data = token ? await ids.signer.verifyState(token, SSO_STATE_COOKIE) : null;
  const ok = data && typeof data.org === 'string' && typeof data.state === 'string' && typeof data.nonce === 'string' && typeof data.codeVerifier === 'string';
  if (!ok) throw new BadRequestError('The sign-in state is missing, expired or invalid; start again');
  if (req.query.state !== data.state) throw new BadRequestError('The sign-in state does not match; start again');
  return { orgId: data.org as string, checks: { state: data.state as string, nonce: data.nonce as string, codeVerifier: data.codeVerifier as string } };
}

/**
 * GET /auth/sso/callback: validates the `sso_state` cookie against the query's state, redeems
 * the code (PKCE, nonce, ID token issuer/audience/expiry/signature: oidc-client.ts), resolves
 * the account (engine sso-sign-in.ts: an existing account from elsewhere only through a domain
 * the org verified, provision at default_role, never downgrade, allowed_domains, deactivated
 * accounts) and mints an ordinary session in the org, marked as established by this org's SSO:
 * it satisfies this org's require_2fa only (a switch re-mints without the mark).
 * 400 state missing/expired/tampered or failed exchange; 403 domain not allowed or account
 * refused; 404 connection gone or disabled; 502 provider unreachable.
 */
export async function finishSso(ids: IdentityServices, engine: EngineContext, ctx: IdentityCtx, req: Request): Promise<SessionResult> {
  const { orgId, checks } = await stateOf(ids, req);
  const { connection, rp } = await relyingParty(ctx, orgId);
  const config = await discoverProvider(rp, oidcTransport(ids.config, engine));
  const identity = await redeemAuthorization(config, callbackUrl(ids.config, req, SSO_CALLBACK_PATH), checks);
  const { user } = await resolveSsoAccount(ctx, connection, identity);
  return mintSessionFor(ids, ctx, user, orgId, orgId);
}

/**
 * The TXT lookup of domain verification (engine sso-domains.ts): `sso.dns_servers`, or the
 * system resolver when empty, each try bounded by half of `sso.http_timeout_seconds`.
 */
export function verificationLookup(config: Config): TxtLookup {
  return dnsTxtLookup({ servers: config.sso.dns_servers, timeoutMs: config.sso.http_timeout_seconds * 1000 });
}
