import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { UnauthorizedError } from '@planwarden/engine/errors';
import { DEFAULT_ORG_ID } from '@planwarden/engine/orgs/org-store';
import type { Principal } from '../http/request-context';

export interface AuthSettings {
  /** The bootstrap key (`auth.api_key`); null = anonymous mode. */
  readonly apiKey: string | null;
}

const ANONYMOUS: Principal = { kind: 'anonymous', orgId: DEFAULT_ORG_ID, role: 'owner', isSuperadmin: true, userId: null, keyId: null };
const BOOTSTRAP: Principal = { kind: 'bootstrap_key', orgId: DEFAULT_ORG_ID, role: 'owner', isSuperadmin: true, userId: null, keyId: null };

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The API key a request presents: `X-API-Key` header, else the `api_key` query parameter. */
export function presentedApiKey(req: Request): string | null {
  const header = req.get('x-api-key');
  if (header) return header;
  const query = req.query.api_key;
  return typeof query === 'string' && query.length > 0 ? query : null;
}

/**
 * Resolves the caller (identity-api.md "Authentication", "Credential shapes"):
 * - auth.api_key unset (the default): anonymous, owner of the default org and superadmin;
 * - auth.api_key set: that key in `X-API-Key` is the bootstrap principal (owner of the default
 *   org, superadmin, never stored); anything else is 401.
 * Throws UnauthorizedError.
 */
export function authenticate(req: Request, settings: AuthSettings): Principal {
  if (settings.apiKey === null) return ANONYMOUS;
  const presented = presentedApiKey(req);
  if (presented === null) throw new UnauthorizedError('Missing credentials: send X-API-Key');
  if (timingSafeEqual(digest(presented), digest(settings.apiKey))) return BOOTSTRAP;
  throw new UnauthorizedError('Invalid API key');
}
