import type { EngineContext } from '@planwarden/engine/context';
import type { IdentityCtx } from '@planwarden/engine/identity/context';
import type { Config } from '../config/config';
import type { RequestContext } from '../http/request-context';
import { Authenticator } from './authenticate';
import { BruteForceGuard } from './brute-force';
import { primeDummyHash } from './login';
import { SessionSigner, jwtSecretMaterial } from './sessions';

/** The identity side's long-lived parts, built once at startup. */
export interface IdentityServices {
  readonly config: Config;
  readonly signer: SessionSigner;
  readonly guard: BruteForceGuard;
  readonly authenticator: Authenticator;
}

/**
 * Builds the signer (JWT secret from config or the data dir), the brute-force guard (counters in
 * the store, thresholds read live from `config.rate_limit`) and the authenticator, and starts
 * hashing the dummy password unknown e-mails are checked against.
 */
export function buildIdentityServices(config: Config, engine: EngineContext): IdentityServices {
  const signer = new SessionSigner(jwtSecretMaterial(config), engine.now);
  const guard = new BruteForceGuard(engine.stores.throttle, () => config.rate_limit, engine.now);
  void primeDummyHash();
  const authenticator = new Authenticator({
    stores: engine.stores, signer, guard,
    settings: () => ({ apiKey: config.auth.api_key, enabled: config.auth.enabled, trustProxy: config.server.trust_proxy }),
  });
  return { config, signer, guard, authenticator };
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
