import { BrowserWindow, shell, type WebContents } from 'electron';
import { join } from 'node:path';

/** The renderer's origin: the dashboard build served by the `app:` protocol (protocol.ts). */
export const RENDERER_ORIGIN = 'app://planwarden';

/**
 * The strict CSP of the renderer: its own scripts and styles only, no inline script, no
 * remote content, no network at all (the API travels over IPC), no frames, no plugins.
 */
export const RENDERER_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "font-src 'self'", "connect-src 'none'", "worker-src 'self' blob:", "frame-src 'none'", "object-src 'none'",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/** http(s) links open in the system browser; nothing else leaves the app. */
function openExternally(url: string): void {
  if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
}

/** Refuses navigation away from the app and every new window (issue 10 "Hardening"). */
export function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!url.startsWith(`${RENDERER_ORIGIN}/`)) {
      event.preventDefault();
      openExternally(url);
    }
  });
  contents.on('will-redirect', (event, url) => {
    if (!url.startsWith(`${RENDERER_ORIGIN}/`)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
}

/** The main window: sandboxed, context-isolated, no Node in the renderer, only the preload's `request`. */
export function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    show: false,
    title: 'Planwarden',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  });
  lockDown(win.webContents);
  win.once('ready-to-show', () => win.show());
  return win;
}
