/**
 * Builds one part of the desktop app (main, preload or renderer) exactly as `npm run
 * desktop:build` does (the root electron.vite.config.ts, resolved by electron-vite, built by
 * vite), into a folder of the caller's choosing so a test never races another build of
 * apps/desktop/out. `buildToolMissing()` says why a test cannot build here (then it skips).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const ELECTRON_VITE_CONFIG = join(REPO_ROOT, 'electron.vite.config.ts');

export type DesktopTarget = 'main' | 'preload' | 'renderer';

/** Null when electron-vite and vite can be loaded, else a sentence saying what is missing. */
export function buildToolMissing(): string | null {
  const require = createRequire(join(REPO_ROOT, 'apps/desktop/package.json'));
  for (const name of ['electron-vite', 'vite']) {
    try {
      require.resolve(name);
    } catch {
      return `${name} is not installed (npm ci installs it with apps/desktop's devDependencies)`;
    }
  }
  return existsSync(ELECTRON_VITE_CONFIG) ? null : 'electron.vite.config.ts is missing';
}

/**
 * Builds `target` into `<outRoot>/<target>` (production mode, as `electron-vite build`).
 * Returns that folder. Throws what the build throws. NODE_ENV is restored afterwards
 * (electron-vite sets it to production while resolving).
 */
export async function buildDesktopTarget(target: DesktopTarget, outRoot: string): Promise<string> {
  const { resolveConfig } = await import('electron-vite');
  const { build } = await import('vite');
  const nodeEnv = process.env.NODE_ENV;
  const electronViteEnv = process.env.NODE_ENV_ELECTRON_VITE;
  process.env.NODE_ENV_ELECTRON_VITE = 'production';
  try {
    const resolved = await resolveConfig({ configFile: ELECTRON_VITE_CONFIG, build: { outDir: outRoot }, logLevel: 'error' }, 'build', 'production');
    const config = resolved.config?.[target];
    if (!config) throw new Error(`electron.vite.config.ts has no ${target} build`);
    await build({ ...config, logLevel: 'error' });
    return join(outRoot, target);
  } finally {
    process.env.NODE_ENV = nodeEnv;
    if (electronViteEnv === undefined) delete process.env.NODE_ENV_ELECTRON_VITE;
    else process.env.NODE_ENV_ELECTRON_VITE = electronViteEnv;
  }
}
