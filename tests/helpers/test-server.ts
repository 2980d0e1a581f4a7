import { loadConfig, type Config } from '../../server/src/config/config';
import { startServer, type RunningServer, type StartOptions } from '../../server/src/server';
import { silentLogger } from '../../engine/src/core/logger';
import type { FakeProvider } from '../fakes/llm-provider-server';

export { CORPUS_DIR, corpusFile, corpusFiles } from '../corpus';

export interface TestServer extends RunningServer {
  readonly config: Config;
  /** fetch against `${url}/api/v1${path}` with JSON handling. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/**
 * Starts the real server on 127.0.0.1, a free port, memory storage, silent logs, pointing the
 * three providers at `fake` when given. `adjust` may change the config after validation
 * (tests use sub-second LLM timeouts the schema would refuse).
 */
export async function startTestServer(
  options: { fake?: FakeProvider; overrides?: Record<string, unknown>; adjust?: (config: Config) => void; start?: StartOptions } = {},
): Promise<TestServer> {
  const config = loadConfig({
    env: {},
    cwd: '/nonexistent',
    overrides: {
      server: { host: '127.0.0.1', port: 0 },
      storage: { backend: 'memory' },
      logging: { level: 'silent' },
      ...(options.fake
        ? {
            llm: {
              openai_base_url: options.fake.openaiBaseUrl,
              anthropic_base_url: options.fake.anthropicBaseUrl,
              ollama_host: options.fake.ollamaHost,
            },
          }
        : {}),
      ...options.overrides,
    },
  });
  options.adjust?.(config);
  const server = await startServer(config, { log: silentLogger, sleep: async () => {}, pollIntervalMs: 50, ...options.start });
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${server.url}/api/v1${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  return Object.assign(server, { config, api });
}

/** Polls GET /jobs/{id} until the job is terminal (bounded: 600 polls). */
export async function waitForJob(server: TestServer, jobId: string, headers?: RequestInit['headers']): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i += 1) {
    const res = await server.api(`/jobs/${jobId}`, { headers });
    const job = (await res.json()) as Record<string, any>;
    if (['done', 'failed', 'cancelled'].includes(job.status)) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not finish`);
}

/** Counts resource_changes of a corpus plan independently of the product's parser. */
export function countResourceChanges(raw: Buffer): number {
  let text = raw[0] === 0xff && raw[1] === 0xfe ? raw.subarray(2).toString('utf16le') : raw.toString('utf8').replace(/^\uFEFF/, '');
  const start = text.search(/^\{/m);
  text = text.slice(start);
  let depth = 0;
  let inString = false;
  let end = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') depth += 1;
    else if (c === '}') {
      depth -= 1;
      if (depth === 0) {
        end = i + 1;
        break;
      }
    }
  }
  const plan = JSON.parse(text.slice(0, end)) as { resource_changes?: unknown[] };
  return plan.resource_changes?.length ?? 0;
}
