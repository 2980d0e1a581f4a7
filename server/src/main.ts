import { fileURLToPath } from 'node:url';
import { logStartBanner } from './banner';
import { loadConfig } from './config/config';
import { createLogger } from './logging';
import { startServer } from './server';

/**
 * Set by server/scripts/build.mjs (esbuild `define`) to the repository's resources/ folder
 * relative to the compiled bundle; unset when running from TypeScript (`npm run dev`), where
 * engine/src finds resources/ relative to its own sources.
 */
declare const __PLANWARDEN_RESOURCES_DIR__: string | undefined;

/** In the compiled build, rules and templates come from the repository's resources/ (unless configured). */
function useBundledResources(): void {
  if (typeof __PLANWARDEN_RESOURCES_DIR__ !== 'string' || process.env.PLANWARDEN_RESOURCES_DIR?.trim()) return;
  process.env.PLANWARDEN_RESOURCES_DIR = fileURLToPath(new URL(__PLANWARDEN_RESOURCES_DIR__, import.meta.url));
}

/**
 * `npm start`: the team server on PLANWARDEN_HOST:PLANWARDEN_PORT (default 127.0.0.1:8000),
 * logging to stdout in the configured format (logging.format, logging.level) and opening with
 * the start banner (banner.ts). A failed start prints one line to stderr and exits 1.
 */
async function main(): Promise<void> {
  useBundledResources();
  const config = loadConfig();
  const log = createLogger(config);
  const server = await startServer(config, { log });
  logStartBanner(log, config, server.url);
  const shutdown = async (signal: string) => {
    log.info({ signal }, `Received ${signal}: shutting down`);
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Planwarden failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
