/**
 * Shared helpers for the benchmarks (issue 6): corpus plans, plan builders of a target size, a
 * server child process with RSS sampling, job polling, timing and the result rows every bench
 * returns. Benchmarks only: never imported by product code or tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CORPUS } from '../tests/corpus';

export const REPO_DIR = fileURLToPath(new URL('../', import.meta.url));
export const CORPUS_DIR = fileURLToPath(CORPUS);

/** One measured figure, printed beside its same-run baseline and target. */
export interface BenchRow {
  readonly item: string;
  readonly figure: string;
  readonly value: string;
  readonly baseline: string;
  readonly target: string;
  /** null: not measurable in this run (the note says why). */
  readonly pass: boolean | null;
  readonly note?: string;
}

export function verdict(pass: boolean | null): string {
  return pass === null ? 'N/A' : pass ? 'PASS' : 'MISS';
}

export function ms(n: number, digits = 1): string {
  return `${n.toFixed(digits)} ms`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Wall time of `fn` in ms. */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

// ---------------------------------------------------------------------------------------------
// Corpus plans.

type Json = Record<string, unknown>;

/** Every parseable `resource_changes` entry of the tfplan-json corpus (UTF-16 and BOM handled). */
export function corpusResourceChanges(filter: (rc: Json) => boolean = () => true): Json[] {
  const dir = join(CORPUS_DIR, 'tfplan-json');
  const out: Json[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const raw = readFileSync(join(dir, file));
    let text = raw[0] === 0xff && raw[1] === 0xfe ? raw.subarray(2).toString('utf16le') : raw.toString('utf8');
    text = text.replace(/^\uFEFF/, '');
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    let plan: Json;
    try {
      plan = JSON.parse(text.slice(start, end + 1)) as Json;
    } catch {
      continue; // a corpus file wrapped in log noise with braces after the plan: skip it
    }
    const changes = Array.isArray(plan.resource_changes) ? (plan.resource_changes as Json[]) : [];
    for (const rc of changes) {
      if (rc && typeof rc === 'object' && typeof rc.address === 'string' && filter(rc)) out.push(rc);
    }
  }
  if (out.length === 0) throw new Error(`no resource_changes found under ${dir}`);
  return out;
}

/** `rc` under a new address: `<type>.<name>` becomes `<type>.<prefix>_<n>` (module path dropped). */
export function renamed(rc: Json, prefix: string, n: number): Json {
  const type = typeof rc.type === 'string' ? rc.type : 'null_resource';
  const name = `${prefix}_${n}`;
  const mode = rc.mode === 'data' ? 'data' : 'managed';
  const address = mode === 'data' ? `data.${type}.${name}` : `${type}.${name}`;
  const copy: Json = { ...rc, address, name, mode, type };
  delete copy.module_address;
  delete copy.index;
  delete copy.previous_address;
  delete copy.deposed;
  return copy;
}

function planEnvelope(changes: readonly Json[]): Json {
  return { format_version: '1.2', terraform_version: '1.9.0', planned_values: { root_module: {} }, resource_changes: changes };
}

/**
 * A valid plan JSON of about `targetBytes` (never more), made of corpus resource_changes
 * replicated under distinct addresses `<type>.<prefix>_<n>`. Returns the text and its unit count.
 */
export function planOfSize(targetBytes: number, prefix: string): { text: string; units: number } {
  const source = corpusResourceChanges();
  const envelope = JSON.stringify(planEnvelope([]));
  let size = Buffer.byteLength(envelope);
  const parts: string[] = [];
  for (let n = 0; ; n += 1) {
    const part = JSON.stringify(renamed(source[n % source.length], prefix, n));
    const add = Buffer.byteLength(part) + 1;
    if (size + add > targetBytes) break;
    parts.push(part);
    size += add;
  }
  const text = envelope.replace('"resource_changes":[]', `"resource_changes":[${parts.join(',')}]`);
  return { text, units: parts.length };
}

/** A plan of exactly `count` units (distinct addresses and bodies), from non-data corpus changes. */
export function planOfUnits(count: number, prefix: string): string {
  const source = corpusResourceChanges((rc) => rc.mode !== 'data');
  const changes = Array.from({ length: count }, (_, n) => renamed(source[n % source.length], prefix, n));
  return JSON.stringify(planEnvelope(changes));
}

// ---------------------------------------------------------------------------------------------
// Server child process.

export interface ServerChild {
  readonly url: string;
  readonly pid: number;
  readonly dataDir: string;
  /** Peak resident set (VmHWM) of the child so far, in MB; null when /proc is unavailable. */
  peakRssMb(): number | null;
  /** Current resident set (VmRSS), in MB. */
  rssMb(): number | null;
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Starts `tsx bench/server-child.ts` (the real server, sqlite in a fresh temp dir unless `env`
 * says otherwise, 127.0.0.1, a free port) and resolves once it printed its URL. `seed` may fill
 * the data dir before the server opens it. The child runs
 * node directly (not through the tsx CLI wrapper) so its pid is the server's, for /proc RSS.
 */
export async function startServerChild(
  env: Record<string, string> = {},
  options: { script?: string; seed?: (dataDir: string) => Promise<void> } = {},
): Promise<ServerChild> {
  const script = options.script ?? 'bench/server-child.ts';
  const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-bench-'));
  await options.seed?.(dataDir);
  // BENCH_CPU_PROF=<dir>: the child writes a V8 CPU profile there on exit (for pinpointing).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_NODE_FLAGS="--trace-gc ...": extra node flags for the child (diagnostics that NODE_OPTIONS refuses).
  profile.push(...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean));
  // A compiled .js child (bench/compiled-server.ts) runs on plain node, as `npm start` does.
  const loader = script.endsWith('.js') ? [] : ['--import', 'tsx'];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...loader, script], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      PLANWARDEN_HOST: '127.0.0.1',
      PLANWARDEN_PORT: '0',
      PLANWARDEN_DATA_DIR: dataDir,
      PLANWARDEN_STORAGE_BACKEND: 'sqlite',
      PLANWARDEN_LOGGING_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const fail = (error: Error) => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`${script} did not start within 60 s`)), 60_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (process.env.BENCH_NODE_FLAGS) process.stderr.write(`[server] ${line}\n`);
      const match = /^BENCH_URL (http:\/\/127\.0\.0\.1:\d+)$/.exec(line.trim());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${script} exited with ${code} before printing its URL`));
    });
  });
  const pid = child.pid!;
  return {
    url,
    pid,
    dataDir,
    peakRssMb: () => procStatusMb(pid, 'VmHWM'),
    rssMb: () => procStatusMb(pid, 'VmRSS'),
    api(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(`${url}/api/v1${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls GET /jobs/{id} every `everyMs` until terminal (bounded by `timeoutMs`). */
export async function waitForJob(server: Pick<ServerChild, 'api'>, jobId: string, timeoutMs = 120_000, everyMs = 20): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const job = (await (await server.api(`/jobs/${jobId}`)).json()) as Record<string, unknown>;
    if (job.status === 'done' || job.status === 'failed' || job.status === 'cancelled') return job;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`job ${jobId} not finished after ${timeoutMs} ms`);
}

/** Provider settings for POST .../analyze against the fake (inline key, catalogue model). */
export const BENCH_LLM = { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-bench' } as const;
