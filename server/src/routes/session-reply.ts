import type { SessionResult } from '../auth/account-service';
import { secureCookies, type IdentityServices } from '../auth/identity';
import { clearedSessionCookie, sessionCookie } from '../auth/sessions';
import type { Reply } from '../http/route';

/** A reply carrying a session: the identity body and the `mcp_session` cookie. */
export function sessionReply(ids: IdentityServices, result: SessionResult, status = 200, body: unknown = result.body): Reply {
  return {
    status,
    body,
    headers: { 'Set-Cookie': sessionCookie(result.token, ids.config.session.access_ttl_minutes, secureCookies(ids.config)) },
  };
}

/** A reply clearing the calling browser's session cookie (the session itself is revoked by login.ts `logout`). */
export function logoutReply(ids: IdentityServices): Reply {
  return { body: { detail: 'Signed out' }, headers: { 'Set-Cookie': clearedSessionCookie(secureCookies(ids.config)) } };
}
