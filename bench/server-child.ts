/**
 * The real Planwarden server as `npm start` runs it, configured from the environment
 * (PLANWARDEN_* variables, sqlite in PLANWARDEN_DATA_DIR by default), printing
 * `BENCH_URL <url>` once listening so bench/lib.ts can find it. SIGTERM closes it cleanly.
 */
import { loadConfig } from '../server/src/config/config';
import { startServer } from '../server/src/server';
import { silentLogger } from '../engine/src/core/logger';
import { configureIngestPool } from '../engine/src/ingest/worker-pool';

async function main(): Promise<void> {
  // BENCH_INGEST_POOL_SIZE=0: ingestion split on the event loop (the same-run baseline of issue 18).
  if (process.env.BENCH_INGEST_POOL_SIZE !== undefined) configureIngestPool(Number(process.env.BENCH_INGEST_POOL_SIZE));
  const config = loadConfig({ env: process.env, cwd: process.env.PLANWARDEN_DATA_DIR ?? '/nonexistent' });
  const server = await startServer(config, { log: silentLogger });
  process.stdout.write(`BENCH_URL ${server.url}\n`);
  const shutdown = async (): Promise<void> => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
