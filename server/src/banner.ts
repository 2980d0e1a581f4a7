import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import type { Logger } from '@planwarden/engine/core/logger';
import { SQLITE_FILE_NAME } from '@planwarden/engine/store/open-store';
import type { Config } from './config/config';
import { PRODUCT_NAME, VERSION } from './version';

export type AuthMode = 'anonymous' | 'bootstrap key' | 'accounts';

/**
 * How requests are authenticated (server/src/auth/authenticate.ts): `anonymous` while
 * auth.enabled is false and no bootstrap key is set (a request without credentials is the owner
 * of the default org); `bootstrap key` when auth.api_key is set (accounts and service keys
 * work too); else `accounts` (sessions and service keys only).
 */
export function authMode(config: Config): AuthMode {
  if (config.auth.api_key !== null) return 'bootstrap key';
  return config.auth.enabled ? 'accounts' : 'anonymous';
}

/** True for `localhost` and loopback addresses (127.0.0.0/8, ::1, ::ffff:127.x). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  try {
    const addr = ipaddr.process(host.replace(/^\[|\]$/g, ''));
    return addr.range() === 'loopback';
  } catch {
    return false;
  }
}

/** Where the data lives, for a person: the SQLite file, the memory note, or the docdb host and database (no credentials). */
export function storageDescription(config: Config): string {
  const { backend, uri, database } = config.storage;
  if (backend === 'sqlite') return `sqlite at ${join(resolve(config.data_dir), SQLITE_FILE_NAME)}`;
  if (backend === 'memory') return 'memory (nothing is kept after the process exits)';
  let where = '(uri not shown)';
  try {
    const url = new URL(uri ?? '');
    where = `${url.protocol}//${url.host}`; // user:password@ and query options left out
  } catch {
    /* unparseable uri: not echoed, it may hold a password */
  }
  return `docdb database "${database}" at ${where}`;
}

const AUTH_NOTES: Record<AuthMode, string> = {
  anonymous: 'no credential needed: every caller is the owner of the default organization',
  'bootstrap key': 'X-API-Key with the bootstrap key (auth.api_key), service keys and user sessions',
  accounts: 'service keys (X-API-Key) and user sessions; requests without a credential get 401',
};

/**
 * Logs the start banner (`npm start`): name and version, the URL, the storage, the auth mode,
 * the documentation URLs, and a `warn` line when anonymous mode listens on a non-loopback
 * address. Each line also carries its facts as fields (`url`, `storage`, `auth_mode`) for JSON logs.
 */
export function logStartBanner(log: Logger, config: Config, url: string): void {
  const mode = authMode(config);
  log.info({ version: VERSION, url }, `${PRODUCT_NAME} ${VERSION} listening on ${url}`);
  log.info({ storage: config.storage.backend }, `Storage: ${storageDescription(config)}`);
  log.info({ auth_mode: mode }, `Auth: ${mode} (${AUTH_NOTES[mode]})`);
  log.info(
    { docs: `${url}/api/v1/docs` },
    `API: ${url}/api/v1 (docs ${url}/api/v1/docs, ReDoc ${url}/api/v1/redoc, OpenAPI ${url}/api/v1/openapi.json), MCP: ${url}/mcp`,
  );
  if (mode === 'anonymous' && !isLoopbackHost(config.server.host)) {
    log.warn(
      { auth_mode: mode, host: config.server.host },
      `Anonymous mode on non-loopback address ${config.server.host}: anyone who can reach this port has full access. Set auth.enabled (PLANWARDEN_AUTH_ENABLED=true) or auth.api_key.`,
    );
  }
}
