import { BrowserWindow, shell, type WebContents } from 'electron';
import { join } from 'node:path';
import { RENDERER_ORIGIN } from '../core/renderer-files';

export { RENDERER_CSP, RENDERER_ORIGIN } from '../core/renderer-files';

/** http(s) links open in the system browser; nothing else leaves the app. */
function openExternally(url: string): void {
  if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
}

/** Refuses navigation away from the app and every new window (hardening). */
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
