import { join, resolve } from 'node:path';

/** The folder electron-builder copies the repository's `resources/` to (package.json `build.extraResources[].to`). */
export const PACKAGED_RESOURCES_FOLDER = 'resources';

export interface ResourcesLocation {
  /** Electron's `app.isPackaged`. */
  readonly isPackaged: boolean;
  /** Electron's `process.resourcesPath` (the packaged app's `resources/` beside app.asar). */
  readonly resourcesPath: string;
  /** Electron's `app.getAppPath()`: `apps/desktop` when run unpackaged (`electron-vite dev`, `electron .`). */
  readonly appPath: string;
  /** An explicit `PLANWARDEN_RESOURCES_DIR` from the environment, which always wins. */
  readonly override?: string | null;
}

/**
 * Where the built-in rules (`<dir>/rules`) and report templates (`<dir>/templates`) are for the
 * desktop app, as the value of `PLANWARDEN_RESOURCES_DIR` (read by engine/src/rules/ruleset.ts and
 * engine/src/report/render.ts). The engine's own fallback is relative to its module URL, which is
 * wrong once the engine is bundled into `apps/desktop/out/main/index.js`, so the main process sets
 * this before the engine boots:
 * - an explicit, non-blank override: that folder, resolved (a developer's own rules);
 * - packaged: `<process.resourcesPath>/resources` (electron-builder `extraResources`);
 * - unpackaged: the repository's `resources/`, two levels above the app path (`apps/desktop`).
 * Returns an absolute path computed at run time; pure (reads neither the disk nor the environment).
 */
export function desktopResourcesDir(location: ResourcesLocation): string {
  const override = location.override?.trim();
  if (override) return resolve(override);
  if (location.isPackaged) return join(location.resourcesPath, PACKAGED_RESOURCES_FOLDER);
  return resolve(location.appPath, '..', '..', 'resources');
}
