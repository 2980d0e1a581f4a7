import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { Config } from '../config/config';
import { Authenticator } from './authenticate';
import { BruteForceGuard } from './brute-force';
import type { IdentityServices } from './identity';
import { SessionSigner, jwtSecretMaterial } from './sessions';

/**
 * Builds the signer (JWT secret from config or the data dir), the brute-force guard (counters in
 * the store, thresholds read live from `config.rate_limit`) and the authenticator. The dummy
 * password unknown e-mails are checked against is hashed once the server listens (server.ts
 * startServer), or by the first login that needs it (login.ts).
 */
export function buildIdentityServices(config: Config, engine: EngineContext): IdentityServices {
  const signer = new SessionSigner(jwtSecretMaterial(config), engine.now);
  const guard = new BruteForceGuard(engine.stores.throttle, () => config.rate_limit, engine.now);
  const authenticator = new Authenticator({
    stores: engine.stores,
    signer,
    guard,
    now: engine.now,
    settings: () => ({ apiKey: config.auth.api_key, enabled: config.auth.enabled, trustProxy: config.server.trust_proxy }),
  });
  return { config, signer, guard, authenticator };
}
