import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify, type JWTPayload } from 'jose';
import type { OrgRole } from '@planwarden/engine/identity/types';
import type { Config } from '../config/config';
import { serverKeyMaterial } from '../config/key-file';

export const SESSION_COOKIE = 'mcp_session';
const MFA_TOKEN_MINUTES = 5;

/** The claims of a session token; role, org and superadmin are fixed at mint time. */
export interface SessionClaims {
  readonly userId: string;
  readonly orgId: string | null;
  readonly role: OrgRole | null;
  readonly isSuperadmin: boolean;
  /** The account's session epoch at mint time; a later revocation bumps it. */
  readonly epoch: number;
  /**
   * The org whose SSO connection established the session (identity-api.md "Single sign-on": an
   * SSO-established session satisfies that org's require_2fa); absent for other sign-ins.
   */
  readonly ssoOrgId?: string | null;
}

/** A verified session token: its claims, its id (`jti`, what logout revokes) and its expiry. */
export interface VerifiedSession extends SessionClaims {
  readonly sessionId: string;
  readonly expiresAt: Date;
}

/** A verified mfa_token: the account, its epoch, the token's id (single use) and expiry. */
export interface VerifiedMfa {
  readonly userId: string;
  readonly epoch: number;
  readonly tokenId: string;
  readonly expiresAt: Date;
}

/**
 * Why a token failed: `forged` (not a JWT we signed: a guess, counted against the source) or
 * `stale` (ours, but expired or of another type: not a guess).
 */
export type TokenFailure = 'forged' | 'stale';

/**
 * The JWT signing secret: config `jwt.secret` (PLANWARDEN_JWT_SECRET), else generated once into
 * `<data_dir>/jwt.key`; the memory backend keeps a per-process secret.
 */
export function jwtSecretMaterial(config: Config): Uint8Array {
  const material = serverKeyMaterial(config, config.jwt.secret, 'jwt.key', 'jwt.secret (PLANWARDEN_JWT_SECRET)');
  return typeof material === 'string' ? new TextEncoder().encode(material) : material;
}

/**
 * Mints and verifies HS256 JWTs (jose): session tokens for the `mcp_session` cookie and
 * short-lived `mfa_token`s for the second login step (identity-api.md "Session"). Time comes
 * from the injected clock, so fake clocks expire tokens.
 */
export class SessionSigner {
  constructor(
    private readonly secret: Uint8Array,
    private readonly now: () => Date,
  ) {}

  /** A session token valid for `ttlMinutes`, with a fresh random `jti`. */
  async mintSession(claims: SessionClaims, ttlMinutes: number): Promise<string> {
    const sso = claims.ssoOrgId ? { sso: claims.ssoOrgId } : {};
    return this.mint({ typ: 'session', org: claims.orgId, role: claims.role, sa: claims.isSuperadmin, ep: claims.epoch, ...sso }, claims.userId, ttlMinutes);
  }

  /** The verified session, or null (bad signature, expired, wrong type, no `jti`). */
  async verifySession(token: string): Promise<VerifiedSession | null> {
    const result = await this.inspectSession(token);
    return 'session' in result ? result.session : null;
  }

  /** As verifySession, telling a forged token from a stale one when it fails. */
  async inspectSession(token: string): Promise<{ session: VerifiedSession } | { failure: TokenFailure }> {
    const payload = await this.verify(token, 'session');
    if (typeof payload === 'string') return { failure: payload };
    return {
      session: {
        userId: String(payload.sub),
        orgId: typeof payload.org === 'string' ? payload.org : null,
        role: typeof payload.role === 'string' ? (payload.role as OrgRole) : null,
        isSuperadmin: payload.sa === true,
        epoch: typeof payload.ep === 'number' ? payload.ep : -1,
        ssoOrgId: typeof payload.sso === 'string' ? payload.sso : null,
        sessionId: payload.jti as string,
        expiresAt: new Date((payload.exp as number) * 1000),
      },
    };
  }

  /** An mfa_token for `userId` (5 minutes, single use through its `jti`), bound to the session epoch. */
  async mintMfa(userId: string, epoch: number): Promise<string> {
    return this.mint({ typ: 'mfa', ep: epoch }, userId, MFA_TOKEN_MINUTES);
  }

  /** The verified mfa_token, or null. */
  async verifyMfa(token: string): Promise<VerifiedMfa | null> {
    const payload = await this.verify(token, 'mfa');
    if (typeof payload === 'string') return null;
    return {
      userId: String(payload.sub),
      epoch: typeof payload.ep === 'number' ? payload.ep : -1,
      tokenId: payload.jti as string,
      expiresAt: new Date((payload.exp as number) * 1000),
    };
  }

  /**
   * A short-lived signed state token of type `typ` (the `sso_state` / `oauth_state` cookies of
   * identity-api.md "Single sign-on", "Social sign-in"): `data` (JSON) under `dat`, expiring
   * after `ttlMinutes` of the injected clock.
   */
  async mintState(typ: string, data: Record<string, unknown>, ttlMinutes: number): Promise<string> {
    return this.mint({ typ, dat: data }, typ, ttlMinutes);
  }

  /** The data of a valid, unexpired state token of type `typ`, else null (tampered, expired, other type). */
  async verifyState(token: string, typ: string): Promise<Record<string, unknown> | null> {
    const payload = await this.verify(token, typ);
    if (typeof payload === 'string' || typeof payload.dat !== 'object' || payload.dat === null) return null;
    return payload.dat as Record<string, unknown>;
  }

  private async mint(claims: Record<string, unknown>, subject: string, ttlMinutes: number): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(subject)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlMinutes * 60)
      .sign(this.secret);
  }

  /** The payload of a valid token of type `typ` (with sub, jti and exp), else why not. */
  private async verify(token: string, typ: string): Promise<JWTPayload | TokenFailure> {
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: ['HS256'], currentDate: this.now() });
      const complete = typeof payload.sub === 'string' && typeof payload.jti === 'string' && typeof payload.exp === 'number';
      return payload.typ === typ && complete ? payload : 'stale';
    } catch (error) {
      // jose checks claims only after the signature: a claim failure means the token is ours.
      return error instanceof errors.JWTExpired || error instanceof errors.JWTClaimValidationFailed ? 'stale' : 'forged';
    }
  }
}

/** `Set-Cookie` value carrying a session (httpOnly, SameSite=Lax, Secure behind https). */
export function sessionCookie(token: string, ttlMinutes: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${ttlMinutes * 60}${secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` value clearing the session cookie (logout). */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}
