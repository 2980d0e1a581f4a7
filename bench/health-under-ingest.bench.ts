/**
 * Issue 18: `/health` latency while four ~10 MB plan ingests run at once. Figures: p50/p99/max
 * of sequential GET /health calls made while the ingests are in flight, with the ingest worker
 * pool (the product) beside the same load with ingestion split on the event loop (pool size 0,
 * the pre-issue-18 behaviour) and beside an idle server, all in the same run. The probes run in a
 * worker thread of their own (health-probe.ts), apart from the thread that sends the ingests.
 */
import { compiledServerEnv, compiledServerScript } from './compiled-server';
import { probeHealth } from './health-probe';
import { median, planOfSize, startServerChild, type BenchRow, type ServerChild } from './lib';

const MB = 1024 * 1024;
const CONCURRENT = 4;
const BYTES = 10 * MB - 64 * 1024;

interface HealthFigures {
  p50: number;
  p99: number;
  max: number;
  samples: number;
  ingestMs: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** /health calls 5 ms apart from a thread of their own (health-probe.ts); latencies in ms. */
async function healthLatencies(url: string, count: number | null, until?: Promise<unknown>): Promise<number[]> {
  const probe = probeHealth(url, { everyMs: 5, count });
  if (until) await until.finally(() => probe.stop());
  return (await probe.samples).map((s) => s.ms);
}

async function underLoad(inline: boolean, plans: readonly Buffer[], script: string): Promise<HealthFigures> {
  const server = await startServerChild(compiledServerEnv(inline ? { BENCH_INGEST_POOL_SIZE: '0' } : {}), { script });
  try {
    // Warm-up: JIT, first worker start, sqlite page cache.
    await ingest(server, 'warm', Buffer.from(planOfSize(512 * 1024, 'warm').text));
    await healthLatencies(server.url, 20);
    const started = performance.now();
    const ingests = Promise.all(plans.map((body, i) => ingest(server, `load-${i}`, body)));
    const samples = await healthLatencies(server.url, null, ingests);
    const ingestMs = performance.now() - started;
    return { p50: median(samples), p99: percentile(samples, 99), max: Math.max(...samples), samples: samples.length, ingestMs };
  } finally {
    await server.stop();
  }
}

async function idleHealth(script: string): Promise<number[]> {
  const server = await startServerChild(compiledServerEnv(), { script });
  try {
    await healthLatencies(server.url, 20);
    return await healthLatencies(server.url, 200);
  } finally {
    await server.stop();
  }
}

async function ingest(server: ServerChild, namespace: string, body: Buffer): Promise<void> {
  const res = await server.api(`/terraform/${namespace}/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  if (res.status !== 201) throw new Error(`ingest ${namespace}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
}

export async function benchHealthUnderIngest(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  // Encoded once up front: the load generator's own work stays out of the measured window.
  const plans = Array.from({ length: CONCURRENT }, (_, i) => Buffer.from(planOfSize(BYTES, `h${i}`).text));
  // The compiled server (as `npm start` runs it) for all three, built once.
  const script = await compiledServerScript();
  const idle = await idleHealth(script);
  const pooled = await underLoad(false, plans, script);
  const inline = await underLoad(true, plans, script);
  const fmt = (f: HealthFigures) =>
    `p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(0)} ms (${f.samples} calls; ingests ${f.ingestMs.toFixed(0)} ms)`;
  log(`  health idle: p99 ${percentile(idle, 99).toFixed(1)} ms; with worker pool: ${fmt(pooled)}; inline: ${fmt(inline)}`);
  // Measured against the same run's idle server, not a fixed 50 ms: a loaded machine slows both.
  const limit = 2 * percentile(idle, 99) + 20;
  return [
    {
      item: '18 no stalls',
      figure: `/health p99 while ${CONCURRENT} × 10 MB ingests run`,
      value: `${pooled.p99.toFixed(1)} ms (max ${pooled.max.toFixed(0)} ms, ${pooled.samples} calls)`,
      baseline: `ingest on the event loop: p99 ${inline.p99.toFixed(0)} ms (max ${inline.max.toFixed(0)} ms); idle server p99 ${percentile(idle, 99).toFixed(1)} ms`,
      target: `≤ 2× idle p99 + 20 ms (${limit.toFixed(1)} ms)`,
      pass: pooled.p99 <= limit,
      note: `4 ingests took ${pooled.ingestMs.toFixed(0)} ms with the pool, ${inline.ingestMs.toFixed(0)} ms inline`,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchHealthUnderIngest().then(
    (rows) => console.table(rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
