import type { Request } from 'express';
import { STRICT_EGRESS } from '@planwarden/engine/net/egress';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { Config } from '../config/config';
import type { OidcTransport } from './oidc-client';

/**
 * Browser-side plumbing shared by org SSO and social sign-in (identity-api.md "Single sign-on",
 * "Social sign-in"): where the provider sends the browser back, where the browser lands, and the
 * short-lived signed state cookie that carries state, nonce and PKCE verifier between the two.
 */

/** The provider transport of this server: the egress policy and `sso.http_timeout_seconds`. */
export function oidcTransport(config: Config, engine: EngineContext): OidcTransport {
  return { egress: engine.egress ?? STRICT_EGRESS, timeoutMs: config.sso.http_timeout_seconds * 1000 };
}

/**
 * The server's external origin: `server.public_base_url`, else the request's own scheme and
 * Host (a server without a configured public URL answers on the address it was reached at).
 */
export function publicBase(config: Config, req: Request): string {
  return (config.server.public_base_url ?? `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`).replace(/\/+$/, '');
}

/** `{public base}/api/v1{path}`: a redirect URI to register with the provider. */
export function redirectUri(config: Config, req: Request, path: string): string {
  return `${publicBase(config, req)}/api/v1${path}`;
}

/** A dashboard page: `server.dashboard_base_url` (falling back to public_base_url), else a relative path. */
export function dashboardUrl(config: Config, path: string): string {
  const base = (config.server.dashboard_base_url ?? config.server.public_base_url ?? '').replace(/\/+$/, '');
  return `${base}${path}`;
}

/** The redirect URI as the browser came back to it, query included (what openid-client validates). */
export function callbackUrl(config: Config, req: Request, path: string): URL {
  const url = new URL(redirectUri(config, req, path));
  url.search = new URL(req.originalUrl, 'http://placeholder').search;
  return url;
}

/**
 * `Set-Cookie` for a state cookie: httpOnly, SameSite=Lax (it must travel on the provider's
 * top-level redirect back), scoped to `path`, `Max-Age` in minutes; Secure behind https.
 */
export function stateCookie(name: string, token: string, path: string, ttlMinutes: number, secure: boolean): string {
  return `${name}=${token}; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=${ttlMinutes * 60}${secure ? '; Secure' : ''}`;
}

/** The value of cookie `name` on the request, or null. */
export function presentedCookie(req: Request, name: string): string | null {
  const value = (req as Request & { cookies?: Record<string, unknown> }).cookies?.[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}
