/**
 * The Electron main process (thin: everything testable lives in ../core). Boots the local
 * engine, serves the dashboard at app://planwarden, answers the one IPC channel, opens plans
 * given on the command line, by File › Open or by drag-and-drop (the dashboard's own drop zone).
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage } from 'electron';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { decodeText } from '@planwarden/engine/ingest/decode';
import { bootLocalEngine, type LocalEngine } from '../core/boot';
import { BRIDGE_CHANNEL } from '../core/bridge-schema';
import type { Bridge } from '../core/bridge';
import { withDesktopRoutes } from '../core/desktop-routes';
import { InputJournal } from '../core/input-journal';
import { Keychain } from '../core/keychain';
import { discoverOllama, registerLocalModels } from '../core/ollama';
import { localApi, teamApi } from '../core/sync/api-client';
import { SyncService } from '../core/sync/sync-service';
import { SyncState } from '../core/sync/sync-state';
import { buildMenu } from './menu';
import { registerAppScheme, serveRenderer } from './protocol';
import { createMainWindow, RENDERER_ORIGIN } from './window';
import { readSettings, writeSettings } from './settings';

const FLUSH_INTERVAL_MS = 60_000;

registerAppScheme();
if (!app.requestSingleInstanceLock()) app.quit();

/** resources/ (rules, templates): beside the app when packaged (electron-builder extraResources), the repository's in development. */
process.env.PLANWARDEN_RESOURCES_DIR ??= app.isPackaged ? join(process.resourcesPath, 'resources') : resolve(import.meta.dirname, '../../../../resources');

let engine: LocalEngine | null = null;
let bridge: Bridge | null = null;
let window: BrowserWindow | null = null;

/** A file the user opened: decoded (UTF-8/UTF-16, BOM) and ingested into a namespace named after it. */
async function openPlan(file: string): Promise<void> {
  if (!bridge || !existsSync(file)) return;
  const namespace = basename(file).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100) || 'plan';
  const res = await bridge({ method: 'POST', path: `/api/v1/${encodeURIComponent(namespace)}/ingest/auto`, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: decodeText(readFileSync(file)) });
  if (res.status !== 201) {
    dialog.showErrorBox('Planwarden could not open the plan', JSON.parse(res.body).detail ?? `HTTP ${res.status}`);
    return;
  }
  await window?.loadURL(`${RENDERER_ORIGIN}/analyse?namespace=${encodeURIComponent(namespace)}`);
}

async function start(): Promise<void> {
  const userData = app.getPath('userData');
  const journal = new InputJournal(join(userData, 'sync', 'inputs'));
  const keychain = new Keychain(safeStorage, join(userData, 'credentials.json'));
  engine = await bootLocalEngine({ userDataDir: userData, ollamaHost: process.env.OLLAMA_HOST ?? null, onExchange: journal.observe });
  const local = localApi(engine.bridge);
  const team = () => {
    const settings = readSettings(userData);
    const key = keychain.get('team-service-key');
    return settings.team_url && key ? { url: settings.team_url, api: teamApi(settings.team_url, key) } : null;
  };
  const sync = new SyncService({ local, team, journal, state: new SyncState(join(userData, 'sync', 'state.json')) });
  const services = engine.services;
  bridge = withDesktopRoutes(engine.bridge, {
    async ollama() {
      const found = await discoverOllama({ host: process.env.OLLAMA_HOST ?? null });
      if (found.status === 'ready') await registerLocalModels(services.engine.stores.models, found.models, new Date().toISOString());
      return found;
    },
    async syncStatus() {
      return { team_url: readSettings(userData).team_url, has_service_key: keychain.names().includes('team-service-key'), keychain_unavailable: keychain.unavailableReason(), queued: sync.queued(), log: sync.log() };
    },
    async syncSettings({ url, service_key }) {
      keychain.set('team-service-key', service_key);
      writeSettings(userData, { team_url: url });
      return { team_url: url, has_service_key: true };
    },
    push: (namespaces) => sync.push(namespaces),
    pull: () => sync.pull(),
  });
  setInterval(() => { if (team()) void sync.flush().catch(() => undefined); }, FLUSH_INTERVAL_MS).unref();

  ipcMain.handle(BRIDGE_CHANNEL, (event, request: unknown) => {
    // Only the app's own page may call the local API.
    const origin = event.senderFrame?.url ?? '';
    const trusted = origin.startsWith(`${RENDERER_ORIGIN}/`) || (!app.isPackaged && !!process.env.ELECTRON_RENDERER_URL && origin.startsWith(process.env.ELECTRON_RENDERER_URL));
    if (!trusted || !bridge) return { status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ detail: 'Not the Planwarden window' }) };
    return bridge(request);
  });

  serveRenderer(join(import.meta.dirname, '../renderer'));
  window = createMainWindow();
  Menu.setApplicationMenu(buildMenu({
    open: async () => {
      const picked = await dialog.showOpenDialog({ properties: ['openFile'], filters: [{ name: 'Plans and diffs', extensions: ['json', 'txt', 'plan', 'diff', 'patch', 'tf', 'yaml', 'yml'] }, { name: 'All files', extensions: ['*'] }] });
      if (!picked.canceled && picked.filePaths[0]) await openPlan(picked.filePaths[0]);
    },
  }));
  await window.loadURL(process.env.ELECTRON_RENDERER_URL && !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : `${RENDERER_ORIGIN}/`);
  const fromArgs = process.argv.slice(app.isPackaged ? 1 : 2).find((a) => !a.startsWith('-') && existsSync(a));
  if (fromArgs) await openPlan(resolve(fromArgs));
}

app.on('second-instance', (_event, argv) => {
  window?.focus();
  const file = argv.slice(1).find((a) => !a.startsWith('-') && existsSync(a));
  if (file) void openPlan(resolve(file));
});
app.on('open-file', (event, file) => { event.preventDefault(); void openPlan(file); });
app.on('window-all-closed', () => app.quit());
app.on('will-quit', () => { void engine?.close(); });
app.whenReady().then(start).catch((error: unknown) => {
  dialog.showErrorBox('Planwarden could not start', error instanceof Error ? error.message : String(error));
  app.exit(1);
});
