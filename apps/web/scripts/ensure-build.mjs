// Builds the dashboard when apps/web/dist is missing or older than its sources (root `prestart`),
// so `npm start` serves a current dashboard with no extra step. Exits non-zero only when the build fails.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const web = resolve(import.meta.dirname, '..');
const built = join(web, 'dist', 'index.html');

/** The newest modification time (ms) under `path` (a file or a folder). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sources = Math.max(newest(join(web, 'src')), newest(join(web, 'index.html')), newest(join(web, 'vite.config.ts')));
if (existsSync(built) && statSync(built).mtimeMs >= sources) process.exit(0);
console.log('Building the dashboard (apps/web)…');
const result = spawnSync(process.execPath, [join(web, '..', '..', 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: web, stdio: 'inherit' });
process.exit(result.status ?? 1);
