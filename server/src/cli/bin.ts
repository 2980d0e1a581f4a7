import { fileURLToPath } from 'node:url';
import { main } from './planwarden';

/**
 * The `planwarden` process: server/bin/planwarden.js imports this module, compiled
 * (server/dist/cli/main.js, built by server/scripts/build.mjs) or, when no bundle can be built,
 * through tsx. It runs the command line on the process's own streams and sets the exit code;
 * nothing is left running once the command is done, so the process ends there (docs/ci.md).
 */

/**
 * Set by server/scripts/build.mjs (esbuild `define`) to the repository's resources/ folder
 * relative to the bundle; unset under tsx, where engine/src finds resources/ by its own path.
 * The same rule as the server's entry (server/src/main.ts).
 */
declare const __PLANWARDEN_RESOURCES_DIR__: string | undefined;

if (typeof __PLANWARDEN_RESOURCES_DIR__ === 'string' && !process.env.PLANWARDEN_RESOURCES_DIR?.trim()) {
  process.env.PLANWARDEN_RESOURCES_DIR = fileURLToPath(new URL(__PLANWARDEN_RESOURCES_DIR__, import.meta.url));
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
});
