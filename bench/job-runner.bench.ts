/**
 * Items 3 and 4: the background job runner against the fake LLM provider (a real HTTP server in
 * this process; the Planwarden server runs in a child process, compiled as `npm start` runs it
 * (bench/compiled-server.ts; BENCH_TS=1: under tsx), sqlite in a temp dir, pointed at the fake
 * through OPENAI_BASE_URL).
 *
 * 3a. 100 units, provider latency 500 ms, max_concurrent_units 4: wall vs the ideal 12.5 s and vs
 *     the same 100 calls made straight to the fake at concurrency 4 (baseline, same run).
 * 3b. 100 units, instant provider: runner wall per unit vs direct calls per unit (target: at most
 *     OVERHEAD_TARGET_MS more per unit), with the server's CPU time per unit.
 * 4.  The 3b plan again into a new namespace: LLM calls made (target 0) vs the first run's calls.
 *
 * Returns the rows and the request bodies the fake received (item 5 checks their shared prefix).
 */
import { loadavg } from 'node:os';
import { startFakeProvider, type FakeProvider, type RecordedRequest } from '../tests/fakes/llm-provider-server';
import { compiledServerEnv, compiledServerScript } from './compiled-server';
import { BENCH_LLM, ms, planOfUnits, processCpuMs, startServerChild, timed, waitForJob, type BenchRow, type ServerChild } from './lib';

const UNITS = 100;
const CONCURRENCY = 4;
const LATENCY_MS = 500;
const IDEAL_MS = (UNITS / CONCURRENCY) * LATENCY_MS;
/** The runner's wall time per unit beyond a direct provider call's, at most (ms). */
const OVERHEAD_TARGET_MS = 3;

export interface JobRunnerResult {
  readonly rows: BenchRow[];
  /** Requests the fake received during the instant-provider run (one per unit). */
  readonly requests: readonly RecordedRequest[];
}

export async function benchJobRunner(log: (line: string) => void = console.log): Promise<JobRunnerResult> {
  const fake = await startFakeProvider();
  let server: ServerChild | null = null;
  const rows: BenchRow[] = [];
  try {
    server = await startServerChild(
      compiledServerEnv({
        OPENAI_BASE_URL: fake.openaiBaseUrl,
        PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS: String(CONCURRENCY),
      }),
      { script: await compiledServerScript() },
    );
    // Warm-up: one small async job (JIT, provider client, sqlite).
    await runJob(server, 'bench-warm', planOfUnits(8, 'warm'));

    // 3a: 500 ms provider.
    fake.setLatency(LATENCY_MS);
    const direct500 = await directCalls(fake, sampleBody(fake), UNITS, CONCURRENCY);
    fake.requests.length = 0;
    const slow = await runJob(server, 'bench-slow', planOfUnits(UNITS, 'slow'));
    log(
      `  job 500 ms: runner ${slow.runnerMs.toFixed(0)} ms, client ${slow.clientMs.toFixed(0)} ms, direct ${direct500.toFixed(0)} ms, ${fake.requests.length} calls`,
    );
    const efficiency = IDEAL_MS / slow.runnerMs;
    rows.push({
      item: '3 job runner',
      figure: `${UNITS} units, 500 ms provider, ${CONCURRENCY} concurrent: wall`,
      value: `${ms(slow.runnerMs, 0)} (${(efficiency * 100).toFixed(1)}% of ideal)`,
      baseline: `ideal ${ms(IDEAL_MS, 0)}; direct calls ${ms(direct500, 0)}`,
      target: `≥ 95% of ideal (≤ ${ms(IDEAL_MS / 0.95, 0)})`,
      pass: efficiency >= 0.95,
      note: `client-observed ${ms(slow.clientMs, 0)} incl. ingest+polling; ${fake.requests.length} LLM calls`,
    });

    // 3b: instant provider.
    fake.setLatency(0);
    const direct0 = await directCalls(fake, sampleBody(fake), UNITS, CONCURRENCY);
    fake.requests.length = 0;
    const instantPlan = planOfUnits(UNITS, 'instant');
    const cpuBefore = processCpuMs(server.pid);
    const instant = await runJob(server, 'bench-instant', instantPlan);
    const cpuAfter = processCpuMs(server.pid);
    // CPU the server spent per unit (ingest, run loop, status polls): unlike wall time, barely moved by other load.
    const cpuPerUnit = cpuBefore !== null && cpuAfter !== null ? `; server CPU ${ms((cpuAfter - cpuBefore) / UNITS, 2)}/unit incl. ingest and polls` : '';
    const requests = [...fake.requests];
    const perUnit = instant.runnerMs / UNITS;
    const directPerUnit = direct0 / UNITS;
    log(
      `  job instant: runner ${instant.runnerMs.toFixed(0)} ms, client ${instant.clientMs.toFixed(0)} ms, direct ${direct0.toFixed(0)} ms, ${requests.length} calls`,
    );
    rows.push({
      item: '3 job runner',
      figure: `${UNITS} units, instant provider: wall per unit`,
      value: `${ms(perUnit, 2)}/unit (${ms(instant.runnerMs, 0)})`,
      baseline: `direct calls ${ms(directPerUnit, 2)}/unit`,
      target: `≤ ${OVERHEAD_TARGET_MS} ms overhead/unit`,
      pass: perUnit - directPerUnit <= OVERHEAD_TARGET_MS,
      note: `overhead ${ms(perUnit - directPerUnit, 2)}/unit beyond the provider round trip${cpuPerUnit}; load average ${loadavg()[0].toFixed(2)}`,
    });

    // 4: same plan, new namespace.
    fake.requests.length = 0;
    const again = await runJob(server, 'bench-instant-copy', instantPlan);
    const calls = fake.requests.length;
    rows.push({
      item: '4 re-analysis',
      figure: 'unchanged plan in a new namespace: LLM calls',
      value: String(calls),
      baseline: `first analysis: ${requests.length} calls`,
      target: '0',
      pass: calls === 0,
      note: `job ${again.status}, ${ms(again.runnerMs, 0)}`,
    });
    return { rows, requests };
  } finally {
    await server?.stop();
    await fake.close();
  }
}

async function runJob(server: ServerChild, namespace: string, plan: string) {
  const t = await timed(async () => {
    const res = await server.api(`/terraform/${namespace}/analyze`, { method: 'POST', json: { ...BENCH_LLM, raw_input: plan } });
    if (res.status !== 202) throw new Error(`analyze ${namespace}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    const { job_id } = (await res.json()) as { job_id: string };
    return waitForJob(server, job_id, 120_000, 20);
  });
  const job = t.value;
  if (job.status !== 'done') throw new Error(`job in ${namespace} ended ${String(job.status)}: ${String(job.error)}`);
  const runnerMs = Date.parse(String(job.finished_at)) - Date.parse(String(job.created_at));
  return { runnerMs, clientMs: t.ms, status: String(job.status) };
}

/** A request body as the server sends it (taken from the warm-up run's first call). */
function sampleBody(fake: FakeProvider): unknown {
  const first = fake.requests.find((r) => r.backend === 'openai');
  if (!first) throw new Error('the warm-up job made no OpenAI call');
  return first.body;
}

/** `count` chat completions straight to the fake, `width` at a time: the provider's own cost. */
async function directCalls(fake: FakeProvider, body: unknown, count: number, width: number): Promise<number> {
  const payload = JSON.stringify(body);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(`${fake.openaiBaseUrl}/chat/completions`, {
        method: 'POST',
        body: payload,
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      });
      await res.arrayBuffer();
    }
  };
  return (await timed(() => Promise.all(Array.from({ length: width }, worker)))).ms;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchJobRunner().then(
    (r) => console.table(r.rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
