import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { ForbiddenError, UnauthorizedError } from '@planwarden/engine/core/errors';
import { recordKeyUse } from '@planwarden/engine/identity/key-service';
import { sha256Hex } from '@planwarden/engine/identity/secrets';
import { DEFAULT_ORG_ID } from '@planwarden/engine/orgs/org-store';
import type { Stores } from '@planwarden/engine/context/engine-context';
import type { Principal } from '../http/request-context';
import { sourceKey, type BruteForceGuard } from './brute-force';
import { clientIp, ipAllowed } from './ip';
import { SESSION_COOKIE, type SessionSigner } from './sessions';

export interface AuthSettings {
  /** The bootstrap key (`auth.api_key`); null = none. */
  readonly apiKey: string | null;
  /** `auth.enabled`: when false and apiKey is null, a request without credentials is anonymous. */
  readonly enabled: boolean;
  /** `server.trust_proxy`: read the leftmost X-Forwarded-For hop. */
  readonly trustProxy: boolean;
}

export const ANONYMOUS: Principal = { kind: 'anonymous', orgId: DEFAULT_ORG_ID, role: 'owner', isSuperadmin: true, userId: null, keyId: null };
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

/** The session token in the `mcp_session` cookie (cookie-parser runs app-wide). */
export function presentedSession(req: Request): string | null {
  const cookies = (req as Request & { cookies?: Record<string, unknown> }).cookies;
  const value = cookies?.[SESSION_COOKIE];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

const SESSION_ENDED = 'Session expired or revoked; sign in again';

export interface AuthenticatorDeps {
  readonly stores: Stores;
  readonly signer: SessionSigner;
  readonly guard: BruteForceGuard;
  readonly settings: () => AuthSettings;
  /** The clock a key's last use is recorded with. */
  readonly now: () => Date;
}

/**
 * Resolves every request to one principal (identity-api.md "Authentication", "Credential shapes"):
 * - `X-API-Key`/`api_key`: the bootstrap key (owner of the default org, superadmin, never
 *   stored), else a service-account key by SHA-256: 401 unknown or revoked, 403 from outside
 *   its ip_allowlist;
 * - the `mcp_session` cookie: a signed session; the account is re-read, and an inactive account,
 *   sessions revoked since issue or this session logged out (its `jti`) answer 401;
 * - no credential: anonymous (owner of the default org, superadmin) only while auth is off
 *   (`auth.enabled` false and no bootstrap key), else 401.
 * Brute force (brute-force.ts, `ip` counter): a key is checked against the source's block
 * before it is looked up (429), and an unknown key or a cookie we did not sign counts as a
 * failure. A revoked key, an expired or revoked session are not guesses and do not count; a
 * validly signed session is never refused for its source's block.
 */
export class Authenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  async authenticate(req: Request): Promise<Principal> {
    const settings = this.deps.settings();
    const key = presentedApiKey(req);
    const token = key === null ? presentedSession(req) : null;
    if (key === null && token === null) {
      if (!settings.enabled && settings.apiKey === null) return ANONYMOUS;
      throw new UnauthorizedError('Missing credentials: send X-API-Key or sign in');
    }
    const ip = clientIp(req, settings.trustProxy);
    return key !== null ? this.fromKey(key, settings, ip) : this.fromSession(token as string, ip);
  }

  private async fromKey(key: string, settings: AuthSettings, ip: string | null): Promise<Principal> {
    const source = sourceKey(ip);
    await this.deps.guard.check('ip', source);
    if (settings.apiKey !== null && timingSafeEqual(digest(key), digest(settings.apiKey))) return BOOTSTRAP;
    const doc = await this.deps.stores.apiKeys.unsafeByHash(sha256Hex(key));
    if (!doc) await this.deps.guard.fail('ip', source);
    if (!doc?.is_active) throw new UnauthorizedError('Invalid API key');
    if (doc.ip_allowlist && !ipAllowed(ip, doc.ip_allowlist)) throw new ForbiddenError('This key may not be used from this address');
    await recordKeyUse(this.deps.stores, doc, this.deps.now());
    return { kind: 'api_key', orgId: doc.org_id, role: doc.role, isSuperadmin: false, userId: null, keyId: doc.key_id };
  }

  private async fromSession(token: string, ip: string | null): Promise<Principal> {
    const result = await this.deps.signer.inspectSession(token);
    if ('failure' in result) {
      if (result.failure === 'forged') {
        const source = sourceKey(ip);
        await this.deps.guard.check('ip', source);
        await this.deps.guard.fail('ip', source);
      }
      throw new UnauthorizedError(SESSION_ENDED);
    }
    const { session } = result;
    const user = await this.deps.stores.users.get(session.userId);
    if (!user?.is_active || user.session_epoch !== session.epoch) throw new UnauthorizedError(SESSION_ENDED);
    if (await this.deps.stores.revokedTokens.isRevoked(session.sessionId)) throw new UnauthorizedError(SESSION_ENDED);
    return {
      kind: 'session',
      orgId: session.orgId,
      role: session.role,
      isSuperadmin: session.isSuperadmin,
      userId: user.user_id,
      keyId: null,
      email: user.email,
      twoFactorEnabled: user.two_factor.enabled,
      ssoOrgId: session.ssoOrgId ?? null,
    };
  }
}
