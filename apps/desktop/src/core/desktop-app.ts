import { join } from 'node:path';
import { bootLocalEngine, type LocalEngine, type LocalEngineOptions } from './boot';
import type { Bridge } from './bridge';
import { withDesktopRoutes } from './desktop-routes';
import { InputJournal } from './input-journal';
import { Keychain, type SafeStorageLike } from './keychain';
import { discoverOllama, registerLocalModels, type OllamaDiscovery } from './ollama';
import { readSettings, writeSettings } from './settings';
import { localApi, teamApi } from './sync/api-client';
import { SyncService, type TeamTarget } from './sync/sync-service';
import { SyncState } from './sync/sync-state';

/** The keychain entry holding the team org's service key. */
export const TEAM_KEY_NAME = 'team-service-key';

export interface DesktopAppOptions extends Omit<LocalEngineOptions, 'onExchange'> {
  /** Electron's `safeStorage` (tests: a stand-in). */
  readonly safeStorage: SafeStorageLike;
  /** Fetch used for Ollama discovery and the team server (tests may wrap it). */
  readonly fetch?: typeof fetch;
}

/** What GET /api/desktop/sync answers (the Sync page). */
export interface SyncStatus {
  readonly team_url: string | null;
  readonly has_service_key: boolean;
  /** Why keys cannot be stored on this machine, or null. */
  readonly keychain_unavailable: string | null;
  readonly queued: string[][];
  readonly log: ReturnType<SyncService['log']>;
}

/** What POST /api/desktop/sync/flush answers: how many queued pushes ran, and what still waits. */
export interface FlushResult {
  readonly ran: number;
  readonly queued: string[][];
}

export interface DesktopApp {
  readonly engine: LocalEngine;
  /** The renderer's one way in: the API plus the desktop-only routes (desktop-routes.ts). */
  readonly bridge: Bridge;
  readonly sync: SyncService;
  /** The configured team org, or null. */
  team(): TeamTarget | null;
  close(): Promise<void>;
}

/**
 * Everything the desktop main process runs besides Electron itself, as a plain Node
 * module: the local engine on SQLite under `userDataDir` (boot.ts), the input journal, the
 * keychain (`<userDataDir>/credentials.json`, sealed by `safeStorage`), the sync service
 * (`<userDataDir>/sync/`), and the desktop-only routes wired to them:
 * GET /api/desktop/ollama (discovery; found models join the local catalogue), GET /api/desktop/sync
 * (SyncStatus), PUT /api/desktop/sync/settings, POST /api/desktop/sync/push, /pull and /flush (FlushResult).
 * Ollama's models are also registered once at start, in the background (a missing Ollama is not an error).
 * Errors: those of bootLocalEngine.
 */
export async function startDesktopApp(options: DesktopAppOptions): Promise<DesktopApp> {
  const { userDataDir, safeStorage, fetch: doFetch, ...engineOptions } = options;
  const journal = new InputJournal(join(userDataDir, 'sync', 'inputs'));
  const keychain = new Keychain(safeStorage, join(userDataDir, 'credentials.json'));
  const engine = await bootLocalEngine({ ...engineOptions, userDataDir, onExchange: journal.observe });
  const now = () => (options.now?.() ?? new Date()).toISOString();

  const team = (): TeamTarget | null => {
    const url = readSettings(userDataDir).team_url;
    const key = keychain.get(TEAM_KEY_NAME);
    return url && key ? { url, api: teamApi(url, key, { fetch: doFetch }) } : null;
  };
  const sync = new SyncService({
    local: localApi(engine.bridge),
    team,
    journal,
    state: new SyncState(join(userDataDir, 'sync', 'state.json')),
    now: options.now,
  });

  const ollama = async (): Promise<OllamaDiscovery> => {
    const found = await discoverOllama({ host: options.ollamaHost ?? null, fetch: doFetch });
    if (found.status === 'ready') await registerLocalModels(engine.services.engine.stores.models, found.models, now());
    return found;
  };
  const status = (): SyncStatus => ({
    team_url: readSettings(userDataDir).team_url,
    has_service_key: keychain.names().includes(TEAM_KEY_NAME),
    keychain_unavailable: keychain.unavailableReason(),
    queued: sync.queued(),
    log: sync.log(),
  });

  const bridge = withDesktopRoutes(engine.bridge, {
    ollama,
    syncStatus: async () => status(),
    async syncSettings({ url, service_key }) {
      if (service_key !== undefined) keychain.set(TEAM_KEY_NAME, service_key);
      else if (!keychain.names().includes(TEAM_KEY_NAME)) throw new Error('Enter the service key: none is stored in the keychain yet');
      writeSettings(userDataDir, { team_url: url });
      return status();
    },
    push: (namespaces) => sync.push(namespaces),
    pull: () => sync.pull(),
    flush: async (): Promise<FlushResult> => ({ ran: await sync.flush(), queued: sync.queued() }),
  });
  // Not awaited: a slow or absent Ollama never delays the window.
  const discovered = ollama().catch(() => undefined);

  return {
    engine,
    bridge,
    sync,
    team,
    async close() {
      await discovered;
      await engine.close();
    },
  };
}
