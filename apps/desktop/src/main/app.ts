/**
 * The Electron main process proper (thin: everything testable lives in ../core), loaded by
 * index.ts once PLANWARDEN_RESOURCES_DIR is set. Boots the local engine, serves the dashboard at
 * app://planwarden, answers the one IPC channel, opens plans given on the command line, by
 * File › Open, by the OS (open-file) or by drag-and-drop (the dashboard's own drop zone).
 */
import { app, type BrowserWindow, dialog, ipcMain, Menu, safeStorage } from 'electron';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { decodeText } from '@planwarden/engine/core/decode';
import { BRIDGE_CHANNEL } from '../core/bridge-schema';
import { startDesktopApp, type DesktopApp } from '../core/desktop-app';
import { buildMenu } from './menu';
import { serveRenderer } from './protocol';
import { createMainWindow, RENDERER_ORIGIN } from './window';

const FLUSH_INTERVAL_MS = 60_000;

let desktop: DesktopApp | null = null;
let window: BrowserWindow | null = null;

/** A file the user opened: decoded (UTF-8/UTF-16, BOM) and ingested into a namespace named after it. */
async function openPlan(file: string): Promise<void> {
  if (!desktop || !existsSync(file)) return;
  const namespace =
    basename(file)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .slice(0, 100) || 'plan';
  const res = await desktop.bridge({
    method: 'POST',
    path: `/api/v1/${encodeURIComponent(namespace)}/ingest/auto`,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: decodeText(readFileSync(file)),
  });
  if (res.status !== 201) {
    dialog.showErrorBox('Planwarden could not open the plan', JSON.parse(res.body).detail ?? `HTTP ${res.status}`);
    return;
  }
  await window?.loadURL(`${RENDERER_ORIGIN}/analyse?namespace=${encodeURIComponent(namespace)}`);
}

async function start(earlyFiles: readonly string[]): Promise<void> {
  desktop = await startDesktopApp({ userDataDir: app.getPath('userData'), ollamaHost: process.env.OLLAMA_HOST ?? null, safeStorage });
  const { sync, team } = desktop;
  setInterval(() => {
    if (team()) void sync.flush().catch(() => undefined);
  }, FLUSH_INTERVAL_MS).unref();

  ipcMain.handle(BRIDGE_CHANNEL, (event, request: unknown) => {
    // Only the app's own page may call the local API.
    const origin = event.senderFrame?.url ?? '';
    const trusted =
      origin.startsWith(`${RENDERER_ORIGIN}/`) ||
      (!app.isPackaged && !!process.env.ELECTRON_RENDERER_URL && origin.startsWith(process.env.ELECTRON_RENDERER_URL));
    if (!trusted || !desktop)
      return { status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ detail: 'Not the Planwarden window' }) };
    return desktop.bridge(request);
  });

  serveRenderer(join(import.meta.dirname, '../renderer'));
  window = createMainWindow();
  Menu.setApplicationMenu(
    buildMenu({
      open: async () => {
        const picked = await dialog.showOpenDialog({
          properties: ['openFile'],
          filters: [
            { name: 'Plans and diffs', extensions: ['json', 'txt', 'plan', 'diff', 'patch', 'tf', 'yaml', 'yml'] },
            { name: 'All files', extensions: ['*'] },
          ],
        });
        if (!picked.canceled && picked.filePaths[0]) await openPlan(picked.filePaths[0]);
      },
    }),
  );
  await window.loadURL(process.env.ELECTRON_RENDERER_URL && !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : `${RENDERER_ORIGIN}/`);
  const fromArgs = process.argv.slice(app.isPackaged ? 1 : 2).find((a) => !a.startsWith('-') && existsSync(a));
  if (fromArgs) await openPlan(resolve(fromArgs));
  for (const file of earlyFiles) await openPlan(file);
}

/**
 * Starts the app once Electron is ready. `earlyFiles`: files the OS asked to open (macOS
 * `open-file`) before this module was loaded; they are opened after the window.
 */
export function runDesktop(earlyFiles: readonly string[]): void {
  app.on('second-instance', (_event, argv) => {
    window?.focus();
    const file = argv.slice(1).find((a) => !a.startsWith('-') && existsSync(a));
    if (file) void openPlan(resolve(file));
  });
  app.on('open-file', (event, file) => {
    event.preventDefault();
    void openPlan(file);
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void desktop?.close();
  });
  app
    .whenReady()
    .then(() => start(earlyFiles))
    .catch((error: unknown) => {
      dialog.showErrorBox('Planwarden could not start', error instanceof Error ? error.message : String(error));
      app.exit(1);
    });
}
