/**
 * The Electron main entry: only what must happen before anything of the engine is evaluated.
 * The engine reads its built-in report templates when its modules load (engine/src/report/render.ts),
 * and in the bundle those modules are chunks that a static import would evaluate before this
 * file's body; so the resources folder is set first (core/resources-path.ts) and the app proper
 * (app.ts) is imported dynamically afterwards. The `app:` scheme is registered and the
 * single-instance lock taken synchronously, before Electron's ready event.
 */
import { app, type Event } from 'electron';
import { desktopResourcesDir } from '../core/resources-path';
import { registerAppScheme } from './protocol';

process.env.PLANWARDEN_RESOURCES_DIR = desktopResourcesDir({
  isPackaged: app.isPackaged,
  resourcesPath: process.resourcesPath,
  appPath: app.getAppPath(),
  override: process.env.PLANWARDEN_RESOURCES_DIR,
});
registerAppScheme();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // macOS may ask to open a file before the app module is loaded: keep it for later.
  const earlyFiles: string[] = [];
  const keep = (event: Event, file: string) => {
    event.preventDefault();
    earlyFiles.push(file);
  };
  app.on('open-file', keep);
  const { runDesktop } = await import('./app');
  app.off('open-file', keep);
  runDesktop(earlyFiles);
}
