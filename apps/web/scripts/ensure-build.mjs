// The dashboard's build check of `npm start` (server/scripts/start.mjs calls it in its own
// process: one Node start-up, not a `prestart` process before it): builds apps/web
// when its dist is missing or older than its sources, so `npm start` serves a current dashboard
// with no extra step.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The dashboard package folder (apps/web). */
export const WEB_DIR = resolve(import.meta.dirname, '..');

/** The newest modification time (ms) under `path` (a file or a folder); 0 when absent. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** True when `web`/dist/index.html is missing or older than any of `web`'s sources (src/, index.html, vite.config.ts). */
export function dashboardIsStale(web = WEB_DIR) {
  const built = join(web, 'dist', 'index.html');
  const sources = Math.max(newest(join(web, 'src')), newest(join(web, 'index.html')), newest(join(web, 'vite.config.ts')));
  return !existsSync(built) || statSync(built).mtimeMs < sources;
}

/** `vite build` of `web` in a child process; its exit status. */
function viteBuild(web) {
  const vite = join(web, '..', '..', 'node_modules', 'vite', 'bin', 'vite.js');
  return spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: web, stdio: 'inherit' }).status ?? 1;
}

/**
 * Builds the dashboard when it is stale (dashboardIsStale). Returns 0 when the build is current
 * or was built, else the build's non-zero exit status. `build` replaces `vite build` in tests.
 */
export function ensureDashboardBuild({ web = WEB_DIR, build = viteBuild } = {}) {
  if (!dashboardIsStale(web)) return 0;
  console.log('Building the dashboard (apps/web)…');
  return build(web);
}
