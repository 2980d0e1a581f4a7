import type { IdentityCtx } from '@planwarden/engine/context/identity-context';
import type { Config } from '../config/config';
import type { RequestContext } from '../http/request-context';
import type { Authenticator } from './authenticate';
import type { BruteForceGuard } from './brute-force';
import type { SessionSigner } from './sessions';

/** The identity side's long-lived parts, built once at startup. */
export interface IdentityServices {
  readonly config: Config;
  readonly signer: SessionSigner;
  readonly guard: BruteForceGuard;
  readonly authenticator: Authenticator;
}

/** The identity services' context for one request: the engine plus the actor the audit log records. */
export function identityCtx(ctx: RequestContext): IdentityCtx {
  const p = ctx.principal;
  return {
    engine: ctx.engine,
    actor: {
      userId: p.userId,
      // `_anon` only for the anonymous principal of auth-off mode (public routes have no org).
      keyId: p.keyId ?? (p.kind === 'bootstrap_key' ? '_bootstrap' : p.kind === 'anonymous' && p.orgId !== null ? '_anon' : null),
      email: p.email ?? null,
      isSuperadmin: p.isSuperadmin,
      ip: ctx.ip ?? null,
      requestId: ctx.requestId,
    },
  };
}

/** Whether cookies should carry `Secure` (the public base URL is https). */
export function secureCookies(config: Config): boolean {
  return (config.server.public_base_url ?? '').startsWith('https://');
}
