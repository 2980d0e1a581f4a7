import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@planwarden/engine/core/logger';
import { silentLogger } from '@planwarden/engine/core/logger';
import { loadConfig, type Config } from '@planwarden/server/config/config';
import { buildServer } from '@planwarden/server/server';
import type { ServerServices } from '@planwarden/server/services';
import { createBridge, type Bridge, type BridgeOptions } from './bridge';

export interface LocalEngineOptions {
  /** Electron's `app.getPath('userData')` (tests: a temporary folder). The SQLite file lives in `<userDataDir>/data`. */
  readonly userDataDir: string;
  /** Ollama's base URL (`OLLAMA_HOST`); null = the SDK's default, 127.0.0.1:11434. */
  readonly ollamaHost?: string | null;
  readonly log?: Logger;
  /** Fake clocks in tests. */
  readonly now?: () => Date;
  /** Backoff sleep of the LLM retry loop (tests: zero delay). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly pollIntervalMs?: number;
  /** Observer of every bridge exchange (the sync's input journal). */
  readonly onExchange?: BridgeOptions['onExchange'];
}

export interface LocalEngine {
  readonly config: Config;
  readonly services: ServerServices;
  /** The one way in: `bridge({method, path, headers, body})` (bridge.ts). */
  readonly bridge: Bridge;
  /** Wall time of the boot, in ms. */
  readonly bootMs: number;
  close(): Promise<void>;
}

/** The desktop configuration: the team server's defaults with local storage, auth off, no port. */
export function desktopConfig(userDataDir: string, ollamaHost: string | null): Config {
  const dataDir = join(userDataDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  return loadConfig({
    env: {},
    cwd: dataDir,
    overrides: {
      data_dir: dataDir,
      storage: { backend: 'sqlite' },
      // The single local user owns the local (default) org: no credential is asked for.
      auth: { enabled: false, api_key: null },
      logging: { level: 'warn', format: 'json' },
      llm: { ollama_host: ollamaHost },
    },
  });
}

/**
 * Boots the same engine and Express app as the team server (server/src/server.ts `buildServer`)
 * in-process, on SQLite under `userDataDir`, auth off, and starts its job runner. Opens no
 * listening port: requests arrive through the returned bridge only. Errors: whatever storage
 * opening raises (an unwritable folder, a corrupt database) — the caller shows it.
 */
export async function bootLocalEngine(options: LocalEngineOptions): Promise<LocalEngine> {
  const started = performance.now();
  const config = desktopConfig(options.userDataDir, options.ollamaHost ?? null);
  const built = await buildServer(config, { log: options.log ?? silentLogger, now: options.now, sleep: options.sleep, pollIntervalMs: options.pollIntervalMs });
  await built.runner.start();
  const bridge = createBridge({ handler: built.app, onExchange: options.onExchange });
  const bootMs = performance.now() - started;
  return {
    config,
    services: built.services,
    bridge,
    bootMs,
    async close() {
      await built.runner.stop();
      await built.mcp.close();
      built.services.identity.guard.shutdown();
      await built.services.engine.stores.spans.flush();
      await built.store.close();
    },
  };
}
