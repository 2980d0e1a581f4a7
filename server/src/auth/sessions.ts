import { SignJWT, jwtVerify } from 'jose';
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
}

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
  constructor(private readonly secret: Uint8Array, private readonly now: () => Date) {}

  /** A session token valid for `ttlMinutes`. */
  async mintSession(claims: SessionClaims, ttlMinutes: number): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({ typ: 'session', org: claims.orgId, role: claims.role, sa: claims.isSuperadmin, ep: claims.epoch })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.userId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlMinutes * 60)
      .sign(this.secret);
  }

  /** The claims of a valid session token, or null (bad signature, expired, wrong type). */
  async verifySession(token: string): Promise<SessionClaims | null> {
    const payload = await this.verify(token, 'session');
    if (!payload) return null;
    return {
      userId: String(payload.sub),
      orgId: typeof payload.org === 'string' ? payload.org : null,
      role: typeof payload.role === 'string' ? (payload.role as OrgRole) : null,
      isSuperadmin: payload.sa === true,
      epoch: typeof payload.ep === 'number' ? payload.ep : -1,
    };
  }

  /** An mfa_token for `userId` (5 minutes), bound to the account's session epoch. */
  async mintMfa(userId: string, epoch: number): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({ typ: 'mfa', ep: epoch })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + MFA_TOKEN_MINUTES * 60)
      .sign(this.secret);
  }

  /** `{userId, epoch}` of a valid mfa_token, or null. */
  async verifyMfa(token: string): Promise<{ userId: string; epoch: number } | null> {
    const payload = await this.verify(token, 'mfa');
    return payload ? { userId: String(payload.sub), epoch: typeof payload.ep === 'number' ? payload.ep : -1 } : null;
  }

  private async verify(token: string, typ: string) {
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: ['HS256'], currentDate: this.now() });
      return payload.typ === typ && typeof payload.sub === 'string' ? payload : null;
    } catch {
      return null;
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
