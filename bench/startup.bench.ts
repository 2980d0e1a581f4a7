/**
 * Start-up (issues 18 and 29): wall time from spawning `npm start` (the root package.json script,
 * server/scripts/start.mjs: the dashboard's build check, then the compiled server) to the first
 * 200 from GET /health, with a fresh data folder and with one a previous start already created,
 * beside `node -e ''` (Node's own start-up) and the bundle run directly (`node
 * server/scripts/start.mjs`, npm's share left out) in the same run. For the direct start, also
 * the server's CPU time (user + system, /proc) when first healthy, which a loaded machine skews
 * less than wall time, and its memory at rest (VmRSS one second after it is healthy, before any
 * other request). Runs are interleaved (baseline, fresh, existing, direct, …) so a burst of other
 * work on a shared machine hits every kind alike; figures are medians. The server listens on
 * 127.0.0.1 on a port picked free.
 *
 * Usage: `npx tsx bench/run-all.ts startup`, or `npx tsx bench/startup.bench.ts`. With
 * BENCH_CPU_PROF=<dir>, each direct start (`node server/scripts/start.mjs`) writes a V8 CPU profile
 * there when it is stopped, right after its first healthy answer (its figures then include the
 * profiler's cost).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { START_NODE_OPTIONS } from './compiled-server';
import { REPO_DIR, median, ms, processCpuMs, processRssMb, type BenchRow } from './lib';

const RUNS = 5;
/** The start-up budget: `npm start` → healthy on an existing data folder (ms). */
const GOAL_EXISTING_MS = 1000;
/** The same with a fresh data folder, which seeds the database first (ms). */
const GOAL_FRESH_MS = 1500;
/** The memory budget of an idle server: RSS at rest (MB). */
const GOAL_REST_RSS_MB = 120;
const REST_MS = 1000;
const TIMEOUT_MS = 60_000;
const POLL_MS = 5;

/** A TCP port free on 127.0.0.1 at the time of asking. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** ms from spawning `command args` until it exits (the `node -e ''` baseline). */
function timeToExit(command: string, args: readonly string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_DIR, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

interface StartSample {
  readonly ms: number;
  /** The spawned process's CPU time when healthy (meaningful when it is the server itself). */
  readonly cpuMs: number | null;
  /** Its VmRSS REST_MS after healthy, when asked for. */
  readonly restRssMb: number | null;
}

/**
 * ms from spawning `command args` (a server) until GET /health on `port` answers 200; with
 * `rest`, waits REST_MS more and reads the process's resident set. The process group is then
 * stopped (npm runs the server as its child).
 */
async function timeToHealthy(command: string, args: readonly string[], dataDir: string, rest = false): Promise<StartSample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: REPO_DIR,
    detached: true, // its own process group: npm's child server is stopped with it
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      PLANWARDEN_HOST: '127.0.0.1',
      PLANWARDEN_PORT: String(port),
      PLANWARDEN_DATA_DIR: dataDir,
      PLANWARDEN_STORAGE_BACKEND: 'sqlite',
      PLANWARDEN_LOGGING_LEVEL: 'silent',
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited ${child.exitCode}: ${stderr.slice(0, 300)}`);
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`${command} ${args.join(' ')}: no healthy /health within ${TIMEOUT_MS} ms`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        await res.arrayBuffer();
        if (res.status === 200) {
          const ms = performance.now() - started;
          const cpu = processCpuMs(child.pid!);
          if (rest) await new Promise((r) => setTimeout(r, REST_MS));
          return { ms, cpuMs: cpu, restRssMb: rest ? processRssMb(child.pid!) : null };
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    if (child.exitCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}

/**
 * The start-up figures as bench rows: `npm start` → healthy on a fresh and on an existing data
 * folder (goal ≤ 1.5 s), the bundle without npm, and the `node -e ''` baseline of the same run.
 */
export async function benchStartup(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const existingDir = mkdtempSync(join(tmpdir(), 'planwarden-bench-start-'));
  const samples = { node: [] as number[], fresh: [] as number[], existing: [] as number[], direct: [] as number[] };
  const directCpu: number[] = [];
  const restRss: number[] = [];
  try {
    // Warm-up (not counted): rebuilds a stale bundle or dashboard, creates the existing folder.
    await timeToHealthy(npm, ['start', '--silent'], existingDir);
    for (let run = 0; run < RUNS; run += 1) {
      samples.node.push(await timeToExit(process.execPath, ['-e', '']));
      const freshDir = mkdtempSync(join(tmpdir(), 'planwarden-bench-start-'));
      try {
        samples.fresh.push((await timeToHealthy(npm, ['start', '--silent'], freshDir)).ms);
      } finally {
        rmSync(freshDir, { recursive: true, force: true });
      }
      samples.existing.push((await timeToHealthy(npm, ['start', '--silent'], existingDir)).ms);
      const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
      const direct = await timeToHealthy(
        process.execPath,
        [...START_NODE_OPTIONS.split(' ').filter(Boolean), ...profile, 'server/scripts/start.mjs'],
        existingDir,
        !process.env.BENCH_CPU_PROF,
      );
      samples.direct.push(direct.ms);
      if (direct.cpuMs !== null) directCpu.push(direct.cpuMs);
      if (direct.restRssMb !== null) restRss.push(direct.restRssMb);
    }
  } finally {
    rmSync(existingDir, { recursive: true, force: true });
  }
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<keyof typeof samples, number>;
  const list = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
  log(
    `  node -e '': ${list(samples.node)} ms; npm start fresh: ${list(samples.fresh)} ms; existing: ${list(samples.existing)} ms; node start.mjs: ${list(samples.direct)} ms (CPU ${list(directCpu)} ms); RSS at rest: ${list(restRss)} MB`,
  );
  const cpu = directCpu.length > 0 ? median(directCpu) : null;
  const rss = restRss.length > 0 ? median(restRss) : null;
  const baseline = `node -e '' ${ms(m.node, 0)}`;
  return [
    {
      item: '18 start-up',
      figure: 'npm start → healthy /health, fresh data folder (median)',
      value: ms(m.fresh, 0),
      baseline,
      target: `≤ ${GOAL_FRESH_MS} ms`,
      pass: m.fresh <= GOAL_FRESH_MS,
    },
    {
      item: '29 start-up',
      figure: 'npm start → healthy /health, existing data folder (median)',
      value: ms(m.existing, 0),
      baseline,
      target: `≤ ${GOAL_EXISTING_MS} ms`,
      pass: m.existing <= GOAL_EXISTING_MS,
      note: `npm's own share ${ms(m.existing - m.direct, 0)} (npm start minus node start.mjs)`,
    },
    {
      item: '29 start-up',
      figure: 'node server/scripts/start.mjs → healthy, existing folder (no npm)',
      value: ms(m.direct, 0),
      baseline,
      target: '-',
      pass: null,
      note: cpu === null ? 'CPU n/a' : `server CPU (user+sys) when healthy: ${ms(cpu, 0)}`,
    },
    {
      item: '29 start-up',
      figure: `server RSS at rest, existing folder (VmRSS ${REST_MS / 1000} s after healthy)`,
      value: rss === null ? 'n/a' : `${rss.toFixed(0)} MB`,
      baseline: '-',
      target: `≤ ${GOAL_REST_RSS_MB} MB`,
      pass: rss === null ? null : rss <= GOAL_REST_RSS_MB,
      note: 'node server/scripts/start.mjs, as npm start runs it',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchStartup()
    .then((rows) => console.table(rows))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
