/**
 * Which requests hold the server's event loop, and for how long at a time (the goal: no request
 * over 20 ms). The compiled server (bench/soak-child.ts, as `npm start` runs it) opens an org of
 * BENCH_EVENT_LOOP_FINDINGS findings (default 100k, written into the sqlite file before it starts:
 * findings-list.bench.ts seedFindings) plus a namespace `big` of BIG_UNITS units analysed by their
 * checks (its findings, its report; BENCH_EVENT_LOOP_UNITS, default 1,000), a few hundred triaged
 * findings and BENCH_EVENT_LOOP_FEEDBACK feedback entries (default 20,000, written into the file
 * like the findings: rule health, rule proposals). Then each request runs REPEAT times, one at a
 * time, alone; the server's monitorEventLoopDelay histogram is read before and after
 * (bench/event-loop.ts), so its `max` is the longest stall of the event loop while that request
 * ran. Printed worst first, with the client's median latency.
 *
 * Usage: `npx tsx bench/event-loop.bench.ts` (never part of `npm test`); BENCH_EVENT_LOOP_ONLY=<regex>
 * runs only the requests whose name matches (with BENCH_CPU_PROF=<dir>, bench/lib.ts, for a profile).
 * The 10k-resource namespace figures: `BENCH_EVENT_LOOP_UNITS=10000 npx tsx bench/event-loop.bench.ts`.
 */
import { compiledServerEnv } from './compiled-server';
import { loopDelay, soakServerScript } from './event-loop';
import { seedFeedback } from './event-loop-seed';
import { seedFindings } from './findings-list.bench';
import { median, ms, planOfUnits, startServerChild, type ServerChild } from './lib';

const FINDINGS = Number(process.env.BENCH_EVENT_LOOP_FINDINGS ?? 100_000);
const BIG_UNITS = Number(process.env.BENCH_EVENT_LOOP_UNITS ?? 1_000);
const FEEDBACK = Number(process.env.BENCH_EVENT_LOOP_FEEDBACK ?? 20_000);
const REPEAT = 5;
const STALL_MS = 20;

interface Probe {
  readonly name: string;
  readonly run: (server: ServerChild) => Promise<Response>;
}

const get = (path: string) => (server: ServerChild) => server.api(path);

async function ok(res: Response, what: string): Promise<Response> {
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
  return res;
}

/** The namespace `big` (checks-only analysis) and `triaged` acknowledged findings (their feedback). */
async function prepare(server: ServerChild, triaged: number): Promise<{ hash: string; rule: string }> {
  await ok(await server.api('/terraform/big/analyze', { method: 'POST', json: { raw_input: planOfUnits(BIG_UNITS, 'big') } }), 'analyze big');
  const page = (await (await ok(await server.api(`/findings?limit=${triaged}`), 'findings')).json()) as {
    findings: { resource_hash: string; rule_id: string }[];
  };
  for (const f of page.findings) {
    await ok(await server.api(`/findings/${f.resource_hash}/${f.rule_id}`, { method: 'PATCH', json: { status: 'acknowledged', note: 'bench' } }), 'triage');
  }
  return { hash: page.findings[0].resource_hash, rule: page.findings[0].rule_id };
}

function probes(target: { hash: string; rule: string }): Probe[] {
  let n = 0;
  return [
    { name: 'GET /findings (page of 100)', run: get('/findings?limit=100') },
    { name: 'GET /findings (page of 1000)', run: get('/findings?limit=1000') },
    { name: `GET /findings (offset ${FINDINGS / 2})`, run: get(`/findings?limit=100&offset=${FINDINGS / 2}`) },
    { name: 'GET /findings?include_namespaces (100)', run: get('/findings?limit=100&include_namespaces=true') },
    { name: 'GET /findings?namespace=big (1000)', run: get('/findings?namespace=big&limit=1000') },
    { name: 'GET /findings?namespace=big (100)', run: get('/findings?namespace=big&limit=100') },
    { name: 'GET /findings/summary', run: get('/findings/summary?days=30') },
    { name: 'GET /findings/namespaces', run: get('/findings/namespaces') },
    { name: 'GET /rule-health', run: get('/rule-health') },
    { name: `POST /rule-proposals/refresh (${FEEDBACK} feedback)`, run: (s) => s.api('/rule-proposals/refresh', { method: 'POST' }) },
    { name: 'GET /rule-proposals', run: get('/rule-proposals') },
    { name: 'GET /orgs/default/usage', run: get('/orgs/default/usage') },
    { name: 'GET /jobs', run: get('/jobs?limit=50') },
    { name: 'GET /big/resources', run: get('/big/resources') },
    { name: 'GET /big/report (markdown)', run: get('/big/report?format=markdown') },
    { name: 'GET /big/report (html)', run: get('/big/report?format=html') },
    { name: 'GET /big/report (sarif)', run: get('/big/report?format=sarif') },
    { name: 'GET /big/report (sarif, raw)', run: get('/big/report?format=sarif&raw=true') },
    {
      name: 'POST checks-only analyze (50 units)',
      run: (s) => s.api(`/terraform/small-${n++}/analyze`, { method: 'POST', json: { raw_input: planOfUnits(50, `s${n}`) } }),
    },
    {
      name: 'PATCH /findings/{hash}/{rule}',
      run: (s) =>
        s.api(`/findings/${target.hash}/${target.rule}`, { method: 'PATCH', json: { status: n++ % 2 === 0 ? 'open' : 'acknowledged', note: 'bench' } }),
    },
    { name: 'GET /health', run: (s) => fetch(`${s.url}/health`) },
  ];
}

export interface StallRow {
  name: string;
  maxStallMs: number;
  p99DelayMs: number;
  medianMs: number;
  bytes: number;
}

/** Runs every probe and returns them worst stall first. */
export async function benchEventLoop(log: (line: string) => void = console.log): Promise<StallRow[]> {
  const script = await soakServerScript();
  const seed = async (dir: string) => {
    await seedFindings(dir, FINDINGS);
    await seedFeedback(dir, FEEDBACK);
  };
  // A 10k-unit plan is about 32 MB: over the default input limit.
  const server = await startServerChild(compiledServerEnv({ PLANWARDEN_SERVER_MAX_INPUT_SIZE_MB: '128' }), { script, seed });
  try {
    const target = await prepare(server, 300);
    const rows: StallRow[] = [];
    const only = process.env.BENCH_EVENT_LOOP_ONLY ? new RegExp(process.env.BENCH_EVENT_LOOP_ONLY) : null;
    for (const probe of probes(target).filter((p) => !only || only.test(p.name))) {
      await (await probe.run(server)).arrayBuffer(); // warm-up
      await loopDelay(server);
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < REPEAT; i += 1) {
        const started = performance.now();
        const res = await ok(await probe.run(server), probe.name);
        bytes = (await res.arrayBuffer()).byteLength;
        times.push(performance.now() - started);
      }
      const delay = await loopDelay(server);
      rows.push({ name: probe.name, maxStallMs: delay.max, p99DelayMs: delay.p99, medianMs: median(times), bytes });
      log(`  ${probe.name}: longest event-loop stall ${ms(delay.max, 1)}, client median ${ms(median(times), 1)}, ${bytes} bytes`);
    }
    return rows.sort((a, b) => b.maxStallMs - a.maxStallMs);
  } finally {
    await server.stop();
  }
}

if (process.argv[1]?.endsWith('event-loop.bench.ts')) {
  benchEventLoop().then(
    (rows) => {
      console.log(
        `\n${FINDINGS} findings in the org, ${BIG_UNITS} units in namespace big, ${FEEDBACK} feedback entries; ${REPEAT} requests each, one at a time; stall = monitorEventLoopDelay max (5 ms resolution)`,
      );
      console.table(
        rows.map((r) => ({
          request: r.name,
          'longest stall (ms)': r.maxStallMs,
          'delay p99 (ms)': r.p99DelayMs,
          'client median (ms)': Math.round(r.medianMs * 10) / 10,
          bytes: r.bytes,
          [`> ${STALL_MS} ms`]: r.maxStallMs > STALL_MS ? 'YES' : '',
        })),
      );
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
