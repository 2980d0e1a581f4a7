import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnsupportedMediaTypeError } from '@planwarden/engine/core/errors';
import { presentedApiKey, presentedSession } from './authenticate';

/**
 * Cross-site request forgery backstop (SameSite=Lax on the session cookie being the first line).
 * Two checks, both answering `{detail}`:
 * - JSON routes take only a JSON body (requireJsonBody, 415): a hostile page can send
 *   `text/plain` or an untyped Blob without a CORS preflight, never `application/json`;
 * - a cookie-authenticated state change must not come from another site (crossSiteGuard, 403).
 */

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPES = ['application/json', '+json'];

/** True when the request carries body bytes (a Content-Length above 0, or a chunked body). */
function hasBodyBytes(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(length) && length > 0;
}

/**
 * Middleware for `body: 'json'` routes: a declared Content-Type must be `application/json` or a
 * `+json` suffix type (RFC 6839), any parameters allowed; a body without a Content-Type is
 * refused too. No body and no Content-Type passes (routes whose body is optional).
 * Errors: UnsupportedMediaTypeError (415).
 */
export function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const declared = req.get('content-type');
  if (declared === undefined ? hasBodyBytes(req) : req.is(JSON_TYPES) === false) {
    next(new UnsupportedMediaTypeError(`This endpoint takes a JSON body: send Content-Type: application/json${declared ? ` (got '${declared}')` : ''}`));
    return;
  }
  next();
}

/** Origins the operator serves the dashboard and API from (config `server.*_base_url`). */
export interface TrustedOrigins {
  readonly public_base_url: string | null;
  readonly dashboard_base_url: string | null;
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Same origin: the Origin's host is the request's Host, or it is one of the configured bases. */
function trustedOrigin(origin: string, req: Request, trusted: TrustedOrigins): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin); // `null` (sandboxed frames, data: URLs) does not parse: refused
  } catch {
    return false;
  }
  const host = req.get('host')?.toLowerCase();
  if (host !== undefined && parsed.host === host) return true;
  return parsed.origin === originOf(trusted.public_base_url) || parsed.origin === originOf(trusted.dashboard_base_url);
}

/**
 * App-wide middleware (after cookie parsing): a POST/PUT/PATCH/DELETE authenticated by the
 * `mcp_session` cookie and no API key is refused with ForbiddenError (403) when the browser says
 * it is cross-site (`Sec-Fetch-Site: cross-site`, Fetch Metadata) or its `Origin` (RFC 6454) is
 * neither the request's own host nor a configured base URL. Requests without Origin
 * (non-browser clients, the desktop bridge), same-origin ones and API-key requests pass.
 */
export function crossSiteGuard(trusted: () => TrustedOrigins): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!STATE_CHANGING.has(req.method) || presentedSession(req) === null || presentedApiKey(req) !== null) {
      next();
      return;
    }
    const origin = req.get('origin');
    if (req.get('sec-fetch-site') === 'cross-site' || (origin !== undefined && !trustedOrigin(origin, req, trusted()))) {
      next(new ForbiddenError('Cross-site request refused: a signed-in browser may change state only from this site'));
      return;
    }
    next();
  };
}
