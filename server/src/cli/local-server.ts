import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import type { LlmBackend } from '@planwarden/engine/llm/types';
import { loadConfig } from '../config/config';
import { startServer } from '../server';
import { terminalSafe } from './terminal-safe';

/** A Planwarden server running inside the command, reachable on loopback only. */
export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The bootstrap key the command's own requests carry (random, never shown). */
  readonly apiKey: string;
  close(): Promise<void>;
}

/** Environment variables a local run takes over: provider endpoints and analysis tuning, nothing else. */
const PASSED_VARIABLES = /^(OPENAI_BASE_URL|ANTHROPIC_BASE_URL|OLLAMA_HOST|PLANWARDEN_(ANALYSIS|LLM)_[A-Z0-9_]+|PLANWARDEN_SECRET_KEY)$/;

/**
 * Starts the real server (server.ts `startServer`) for one local analysis: SQLite in `dataDir`
 * (kept, so a re-run skips units already analysed) or in a throwaway directory removed on
 * close; 127.0.0.1 on a free port; auth on with a random bootstrap key, so no other local
 * process can use it while it runs; every analysis queued as a job (sync threshold 0) so the
 * command can show progress; the `model` asked for (none: checks only) added to its own model catalogue when missing
 * (local runs are not limited to the curated models; prices unknown → 0).
 *
 * Configuration files are not read (`planwarden.config.*` in the working directory may belong
 * to the repository being analysed, and must not redirect provider traffic, keys included);
 * only PASSED_VARIABLES come from the environment. Server errors are logged on stderr
 * (terminalSafe).
 * Throws what startServer throws (e.g. an unwritable data dir).
 */
export async function startLocalServer(options: {
  dataDir: string | null;
  env: NodeJS.ProcessEnv;
  model: { backend: LlmBackend; model: string } | null;
}): Promise<LocalServer> {
  const scratch = await mkdtemp(join(tmpdir(), 'planwarden-'));
  const apiKey = randomBytes(32).toString('base64url');
  const env = Object.fromEntries(Object.entries(options.env).filter(([name]) => PASSED_VARIABLES.test(name)));
  try {
    const config = loadConfig({
      env,
      cwd: scratch, // an empty directory: no configuration file
      overrides: {
        data_dir: options.dataDir ? resolve(options.dataDir) : scratch,
        server: { host: '127.0.0.1', port: 0, sync_analysis_max_units: 0, public_base_url: null, dashboard_base_url: null },
        storage: { backend: 'sqlite' },
        auth: { api_key: apiKey, enabled: true, default_admin_email: null, default_admin_password: null },
        rate_limit: { enabled: false },
        logging: { level: 'error' },
      },
    });
    // Server errors can quote the input or a provider's answer: through terminalSafe like every
    // other line the command prints (lossless for pino's JSON lines).
    const log = pino(
      { level: 'error' },
      {
        write: (line: string) => {
          process.stderr.write(terminalSafe(line));
        },
      },
    );
    const server = await startServer(config, { log, pollIntervalMs: 500 });
    if (options.model) {
      await server.services.engine.stores.models.seed(
        [{ llm_backend: options.model.backend, model: options.model.model, input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 }],
        new Date().toISOString(),
      );
    }
    return {
      url: server.url,
      apiKey,
      async close() {
        try {
          await server.close();
        } finally {
          await removeScratch(scratch);
        }
      },
    };
  } catch (error) {
    await removeScratch(scratch);
    throw error;
  }
}

/**
 * Removes the throwaway directory. Retried (fs.rm's maxRetries covers ENOTEMPTY/EBUSY: SQLite can
 * still be unlinking its -wal/-shm files when the first pass reads the directory), and never
 * thrown: a leftover directory in the system's temp dir must not replace the run's own outcome.
 */
async function removeScratch(scratch: string): Promise<void> {
  await rm(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }).catch((error: NodeJS.ErrnoException) => {
    process.stderr.write(`planwarden: warning: could not remove ${scratch}: ${error.code ?? error.message}\n`);
  });
}
