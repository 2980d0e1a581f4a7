import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { SERVER_MAIN } from '../../server/scripts/build.mjs';
import type { FakeProvider } from '../fakes/llm-provider-server';

const REPO = resolve(import.meta.dirname, '../..');

/** A real server process (server/src/main.ts under tsx, or the compiled `npm start` bundle). */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly pid: number;
  /** fetch against `${url}/api/v1${path}` with JSON handling. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Everything the process wrote to stdout so far (JSON log lines with logging.format json). */
  stdout(): string;
  /** The pino JSON lines of stdout, parsed (other lines skipped). */
  logLines(): Record<string, unknown>[];
  /** SIGKILL (a crash, no shutdown) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful shutdown) and wait for the exit. */
  stop(): Promise<void>;
}

export interface SpawnServerOptions {
  /** PLANWARDEN_DATA_DIR: replicas given the same one share the SQLite file. */
  readonly dataDir: string;
  /** Points the three providers' base URLs at the fake. */
  readonly fake?: FakeProvider;
  /** More PLANWARDEN_* variables (e.g. PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS). */
  readonly env?: Record<string, string>;
  /** How long to wait for "listening" (default 60 s: tsx compiles on a loaded machine). */
  readonly startTimeoutMs?: number;
  /**
   * `tsx` (default): server/src/main.ts under tsx (`npm run dev`); `compiled`: the bundle
   * `npm start` runs (server/dist/app/main.js, built by server/scripts/build.mjs beforehand);
   * `start`: `npm start`'s own entry, server/scripts/start.mjs (build checks, then the bundle).
   */
  readonly entry?: 'tsx' | 'compiled' | 'start';
}

/**
 * Spawns the server as its own process on 127.0.0.1, a free port, sqlite storage in `dataDir`,
 * JSON logs at info on stdout, and resolves once it listens. The parent's PLANWARDEN_* and
 * provider variables are not inherited. Kill or stop every process a test starts.
 */
export async function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('PLANWARDEN_') && !['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'OLLAMA_HOST'].includes(name)),
  );
  const env: Record<string, string | undefined> = {
    ...inherited,
    PLANWARDEN_HOST: '127.0.0.1',
    PLANWARDEN_PORT: '0',
    PLANWARDEN_DATA_DIR: options.dataDir,
    PLANWARDEN_STORAGE_BACKEND: 'sqlite',
    PLANWARDEN_LOGGING_LEVEL: 'info',
    PLANWARDEN_LOGGING_FORMAT: 'json',
    ...(options.fake
      ? {
          OPENAI_BASE_URL: options.fake.openaiBaseUrl,
          ANTHROPIC_BASE_URL: options.fake.anthropicBaseUrl,
          OLLAMA_HOST: options.fake.ollamaHost,
        }
      : {}),
    ...options.env,
  };
  // node with tsx's loader, not the tsx CLI: the CLI runs the server in a grandchild that a
  // SIGKILL of the CLI would leave running.
  const args = { compiled: [SERVER_MAIN], start: ['server/scripts/start.mjs'], tsx: ['--import', 'tsx', 'server/src/main.ts'] }[options.entry ?? 'tsx'];
  const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const url = await listeningUrl(
    child,
    () => out,
    () => err,
    options.startTimeoutMs ?? 60_000,
  );

  const exit = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  return {
    url,
    pid: child.pid!,
    api(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(`${url}/api/v1${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    stdout: () => out,
    logLines: () =>
      out.split('\n').flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    kill: () => exit('SIGKILL'),
    stop: () => exit('SIGTERM'),
  };
}

/** Resolves with the URL main.ts prints once listening; rejects on exit or timeout. */
function listeningUrl(child: ChildProcess, out: () => string, err: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out());
      if (match) {
        cleanup();
        resolvePromise(match[1]);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`server exited (${code}) before listening:\n${err()}${out()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`server did not listen within ${timeoutMs} ms:\n${err()}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout!.on('data', check);
    child.once('exit', onExit);
  });
}
