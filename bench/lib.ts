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

/** Every MODULE_EVERY-th unit of a synthetic plan sits in one of MODULES child modules (`module.app_<k>`). */
const MODULE_EVERY = 4;
const MODULES = 3;

/** The child module of the `n`-th unit of a synthetic plan; null = the root module. */
function moduleOf(n: number): string | null {
  return n % MODULE_EVERY === MODULE_EVERY - 1 ? `module.app_${Math.floor(n / MODULE_EVERY) % MODULES}` : null;
}

/**
 * `rc` under a new address: `<type>.<name>` becomes `<type>.<prefix>_<n>` in the root module, or
 * `module.<m>.<type>.<prefix>_<n>` when `module` names one (the corpus module path dropped).
 */
export function renamed(rc: Json, prefix: string, n: number, module: string | null = null): Json {
  const type = typeof rc.type === 'string' ? rc.type : 'null_resource';
  const name = `${prefix}_${n}`;
  const mode = rc.mode === 'data' ? 'data' : 'managed';
  const local = mode === 'data' ? `data.${type}.${name}` : `${type}.${name}`;
  const copy: Json = { ...rc, address: module ? `${module}.${local}` : local, name, mode, type };
  delete copy.module_address;
  delete copy.index;
  delete copy.previous_address;
  delete copy.deposed;
  if (module) copy.module_address = module;
  return copy;
}

/** The parts one resource change adds to each section of a plan, as Terraform writes them. */
interface PlanParts {
  readonly module: string | null;
  readonly change: Json;
  /** planned_values: the resource after the plan (absent when it is destroyed). */
  readonly planned: Json | null;
  /** prior_state: the resource before the plan (absent when it is created). */
  readonly prior: Json | null;
  /** configuration: the resource block (constant expressions of its top-level values). */
  readonly config: Json;
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The parts of `rc` (already renamed) for every section of a plan. */
function planParts(rc: Json): PlanParts {
  const module = typeof rc.module_address === 'string' ? rc.module_address : null;
  const change = isObject(rc.change) ? rc.change : {};
  const actions = Array.isArray(change.actions) ? change.actions : [];
  const provider = typeof rc.provider_name === 'string' ? rc.provider_name : 'registry.terraform.io/hashicorp/null';
  const base = { address: rc.address, mode: rc.mode, type: rc.type, name: rc.name, provider_name: provider, schema_version: 0 };
  const state = (values: unknown, sensitive: unknown) => ({
    ...base,
    values: isObject(values) ? values : {},
    sensitive_values: isObject(sensitive) ? sensitive : {},
  });
  const after = actions.includes('delete') && !actions.includes('create') ? null : change.after;
  const expressions = Object.fromEntries(
    Object.entries(isObject(change.after) ? change.after : {})
      .filter(([, v]) => v !== null && typeof v !== 'object')
      .map(([k, v]) => [k, { constant_value: v }]),
  );
  return {
    module,
    change: rc,
    planned: after === null ? null : state(after, change.after_sensitive),
    prior: isObject(change.before) ? state(change.before, change.before_sensitive) : null,
    config: {
      address: `${rc.mode === 'data' ? 'data.' : ''}${String(rc.type)}.${String(rc.name)}`,
      mode: rc.mode,
      type: rc.type,
      name: rc.name,
      provider_config_key: provider.split('/').pop(),
      expressions,
      schema_version: 0,
    },
  };
}

/**
 * A plan JSON as `terraform show -json` writes it: `planned_values` and `prior_state` (root
 * module resources and `child_modules`), `configuration` (resources and `module_calls`) and
 * `resource_changes`, so a tool reading any of them (Checkov reads `planned_values`) sees the
 * same resources.
 */
function completePlan(parts: readonly PlanParts[]): Json {
  const modules = [...new Set(parts.map((p) => p.module).filter((m): m is string => m !== null))].sort();
  const tree = (pick: (p: PlanParts) => Json | null) => {
    const of = (module: string | null) => parts.filter((p) => p.module === module).flatMap((p) => (pick(p) ? [pick(p)!] : []));
    return {
      resources: of(null),
      ...(modules.length > 0 ? { child_modules: modules.map((m) => ({ address: m, resources: of(m) })) } : {}),
    };
  };
  const moduleCalls = Object.fromEntries(
    modules.map((m) => [
      m.slice('module.'.length),
      { source: `./modules/${m.slice('module.'.length)}`, module: { resources: parts.filter((p) => p.module === m).map((p) => p.config) } },
    ]),
  );
  return {
    format_version: '1.2',
    terraform_version: '1.9.0',
    planned_values: { root_module: tree((p) => p.planned) },
    resource_changes: parts.map((p) => p.change),
    prior_state: { format_version: '1.0', terraform_version: '1.9.0', values: { root_module: tree((p) => p.prior) } },
    configuration: {
      provider_config: {},
      root_module: { resources: parts.filter((p) => p.module === null).map((p) => p.config), ...(modules.length > 0 ? { module_calls: moduleCalls } : {}) },
    },
  };
}

/**
 * A complete plan JSON (completePlan) of about `targetBytes` (never more), made of corpus
 * resource_changes replicated under distinct addresses (renamed; every fourth in a child
 * module). Returns the text and its unit count (resource changes).
 */
export function planOfSize(targetBytes: number, prefix: string): { text: string; units: number } {
  const source = corpusResourceChanges();
  const parts: PlanParts[] = [];
  // Estimated from the parts' own sizes; the text is then trimmed to the target exactly.
  let size = Buffer.byteLength(JSON.stringify(completePlan([])));
  for (let n = 0; ; n += 1) {
    const part = planParts(renamed(source[n % source.length], prefix, n, moduleOf(n)));
    const add = [part.change, part.planned, part.prior, part.config].reduce((sum, p) => sum + (p ? Buffer.byteLength(JSON.stringify(p)) + 1 : 0), 0);
    if (size + add > targetBytes) break;
    parts.push(part);
    size += add;
  }
  let text = JSON.stringify(completePlan(parts));
  while (parts.length > 0 && Buffer.byteLength(text) > targetBytes) {
    parts.pop();
    text = JSON.stringify(completePlan(parts));
  }
  return { text, units: parts.length };
}

/** A complete plan (completePlan) of exactly `count` units (distinct addresses and bodies), from non-data corpus changes. */
export function planOfUnits(count: number, prefix: string): string {
  const source = corpusResourceChanges((rc) => rc.mode !== 'data');
  return JSON.stringify(completePlan(Array.from({ length: count }, (_, n) => planParts(renamed(source[n % source.length], prefix, n, moduleOf(n))))));
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

/** Resident set (VmRSS) of process `pid` now, in MB; null off Linux. */
export function processRssMb(pid: number): number | null {
  return procStatusMb(pid, 'VmRSS');
}

/** User + system CPU time of process `pid` so far, in ms (/proc/<pid>/stat, clock ticks at 100 Hz); null off Linux. */
export function processCpuMs(pid: number): number | null {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
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
