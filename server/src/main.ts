import { loadConfig } from './config/config';
import { startServer } from './server';

/** `npm start`: the team server on PLANWARDEN_HOST:PLANWARDEN_PORT (default 127.0.0.1:8000). */
async function main(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config);
  process.stdout.write(`Planwarden listening on ${server.url} (API ${server.url}/api/v1, storage ${config.storage.backend})\n`);
  const shutdown = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  process.stderr.write(`Planwarden failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
