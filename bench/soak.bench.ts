/**
 * Soak: the compiled server (bench/soak-child.ts, as `npm start` runs it, sqlite) under CLIENTS
 * concurrent clients for `--minutes N` (default 10), with the fake LLM provider answering in
 * 200–500 ms. Each client loops over a weighted mix: plan ingests, checks-only analyses and
 * model analyses of fresh units (so the org grows all along), findings lists, triage, namespace
 * reports, the findings summary, usage and rule health; GET /health runs once a second beside,
 * from a thread of its own (health-probe.ts).
 *
 * Printed per minute: every route's p50/p99 (ms), the server's monitorEventLoopDelay p99 and max,
 * /health p99, the server's RSS; at the end the RSS slope (MB/min, least squares over the samples
 * after the first minute), the request and error counts, the findings in the org, and the goals
 * (/health p99 ≤ 50 ms every minute; each route's last-minute p99 within 1.5× its second
 * minute's), and the aggregate routes' median latency at rest on the grown org. Never part of `npm test`.
 *
 * Usage: `npx tsx bench/soak.bench.ts [--minutes N] [--clients C] [--think-ms T]` (default 10 min, 8
 * clients, 200 ms between a client's requests: about the issue's 34 requests/s).
 */
import { parseArgs } from 'node:util';
import { startFakeProvider } from '../tests/fakes/llm-provider-server';
import { compiledServerEnv } from './compiled-server';
import { loopDelay, soakServerScript, type LoopDelay } from './event-loop';
import { probeHealth, type HealthSample } from './health-probe';
import { BENCH_LLM, planOfUnits, processCpuMs, startServerChild, type ServerChild } from './lib';

const { values: args } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, clients: { type: 'string', default: '8' }, 'think-ms': { type: 'string', default: '200' } },
});
const MINUTES = Number(args.minutes);
const CLIENTS = Number(args.clients);
/** Each client's pause between two requests (a person or a CI job, not a closed loop). */
const THINK_MS = Number(args['think-ms']);
const MINUTE_MS = 60_000;
const HEALTH_GOAL_MS = 50;
const GROWTH_GOAL = 1.5;

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Latencies per route, per minute of the run. */
class Recorder {
  readonly minutes: Map<string, number[]>[] = [];
  requests = 0;
  serverErrors = 0;
  connectionErrors = 0;
  otherNon2xx = new Map<string, number>();
  constructor(private readonly started: number) {}

  private minute(at: number): Map<string, number[]> {
    const index = Math.min(MINUTES - 1, Math.floor((at - this.started) / MINUTE_MS));
    while (this.minutes.length <= index) this.minutes.push(new Map());
    return this.minutes[index];
  }

  /** Records a request timed elsewhere (a health probe's sample; NaN: the connection failed). */
  record(route: string, sample: HealthSample): void {
    this.requests += 1;
    if (Number.isNaN(sample.ms)) this.connectionErrors += 1;
    else this.add(route, sample.at - performance.timeOrigin, sample.ms, sample.status);
  }

  /** Times one request; the response body is read whole. Returns the parsed JSON (or null). */
  async time(route: string, send: () => Promise<Response>): Promise<unknown> {
    const started = performance.now();
    this.requests += 1;
    try {
      const res = await send();
      const text = await res.text();
      this.add(route, performance.now(), performance.now() - started, res.status);
      return res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null;
    } catch {
      this.connectionErrors += 1;
      return null;
    }
  }

  /** One answered request: its latency in the bucket of the minute `at` falls in, its status counted. */
  private add(route: string, at: number, ms: number, status: number): void {
    const bucket = this.minute(at);
    const latencies = bucket.get(route);
    if (latencies) latencies.push(ms);
    else bucket.set(route, [ms]);
    if (status >= 500) this.serverErrors += 1;
    else if (status >= 300) this.otherNon2xx.set(`${route} ${status}`, (this.otherNon2xx.get(`${route} ${status}`) ?? 0) + 1);
  }
}

interface Finding {
  resource_hash: string;
  rule_id: string;
}

/** One client's loop until `until`: a weighted pick of the soak's mix each round. */
async function client(id: number, server: ServerChild, rec: Recorder, until: number): Promise<void> {
  let seq = 0;
  const namespaces: string[] = [];
  let findings: Finding[] = [];
  const post = (path: string, json: unknown) => () => server.api(path, { method: 'POST', json });
  const mix: [number, () => Promise<unknown>][] = [
    [
      2,
      async () => {
        const ns = `c${id}-ingest-${seq++}`;
        await rec.time('POST ingest (20 units)', () =>
          server.api(`/terraform/${ns}/ingest`, { method: 'POST', body: planOfUnits(20, `${ns}`), headers: { 'content-type': 'application/json' } }),
        );
      },
    ],
    [
      3,
      async () => {
        const ns = `c${id}-checks-${seq++}`;
        await rec.time('POST analyze checks-only (10 units)', post(`/terraform/${ns}/analyze`, { raw_input: planOfUnits(10, ns) }));
        namespaces.push(ns);
      },
    ],
    [
      2,
      async () => {
        const ns = `c${id}-model-${seq++}`;
        await rec.time('POST analyze model (3 units, sync)', post(`/terraform/${ns}/analyze`, { ...BENCH_LLM, raw_input: planOfUnits(3, ns) }));
        namespaces.push(ns);
      },
    ],
    [
      4,
      async () => {
        const page = (await rec.time('GET /findings (100)', () => server.api(`/findings?limit=100&offset=${(seq++ % 5) * 100}`))) as {
          findings?: Finding[];
        } | null;
        if (page?.findings?.length) findings = page.findings;
      },
    ],
    [
      3,
      async () => {
        const f = findings[seq++ % Math.max(1, findings.length)];
        if (!f) return;
        const status = ['acknowledged', 'open', 'false_positive', 'suppressed'][seq % 4];
        await rec.time('PATCH /findings/{hash}/{rule}', () =>
          server.api(`/findings/${f.resource_hash}/${f.rule_id}`, { method: 'PATCH', json: { status, note: 'soak', reason_code: 'other' } }),
        );
      },
    ],
    [
      1,
      async () => {
        const ns = namespaces[namespaces.length - 1];
        if (ns) await rec.time('GET /{ns}/report (markdown)', () => server.api(`/${ns}/report?format=markdown`));
      },
    ],
    [2, () => rec.time('GET /findings/summary', () => server.api('/findings/summary?days=30'))],
    [2, () => rec.time('GET /orgs/{org}/usage', () => server.api('/orgs/default/usage'))],
    [1, () => rec.time('GET /rule-health', () => server.api('/rule-health'))],
  ];
  const total = mix.reduce((n, [w]) => n + w, 0);
  let pick = id;
  while (Date.now() < until) {
    // A fixed stride through the weights: every client runs the same mix, in different phases.
    pick = (pick + 7) % total;
    let at = pick;
    const op = mix.find(([w]) => (at -= w) < 0)![1];
    await op();
    await new Promise((r) => setTimeout(r, THINK_MS));
  }
}

/** Calls per route of the at-rest figures. */
const REST_CALLS = 20;

/**
 * The aggregate routes' median latency on the grown org with nothing else running (the issue's
 * "on the same data at rest" figure): an aggregate that reads every row of the org grows here
 * with the soak; one answered from counters stays at a fresh org's few milliseconds.
 */
async function atRest(server: ServerChild): Promise<[string, number][]> {
  const routes: [string, string][] = [
    ['GET /orgs/{org}/usage', '/orgs/default/usage'],
    ['GET /findings/summary', '/findings/summary?days=30'],
    ['GET /rule-health', '/rule-health'],
  ];
  const out: [string, number][] = [];
  for (const [route, path] of routes) {
    const times: number[] = [];
    for (let i = 0; i < REST_CALLS; i += 1) {
      const started = performance.now();
      await (await server.api(path)).arrayBuffer();
      times.push(performance.now() - started);
    }
    out.push([route, percentile(times, 50)]);
  }
  return out;
}

/** Least-squares slope of (minute, MB) samples. */
function slope(samples: readonly [number, number][]): number {
  const n = samples.length;
  if (n < 2) return Number.NaN;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

async function main(): Promise<void> {
  const fake = await startFakeProvider({ latencyMs: 300 });
  const latency = setInterval(() => {
    fake.setLatency(200 + Math.floor(Math.random() * 300));
    fake.requests.splice(0); // the fake records every request; nothing here reads them
  }, 1000);
  const script = await soakServerScript();
  const server = await startServerChild(compiledServerEnv({ OPENAI_BASE_URL: fake.openaiBaseUrl, ANTHROPIC_BASE_URL: fake.anthropicBaseUrl }), { script });
  const started = performance.now();
  const until = Date.now() + MINUTES * MINUTE_MS;
  const rec = new Recorder(started);
  const health = new Recorder(started);
  const loops: LoopDelay[] = [];
  const rss: [number, number][] = [];
  try {
    await loopDelay(server); // the histogram starts with the load
    // From a thread of its own: the clients' work in this process never delays a probe (health-probe.ts).
    const healthProbe = probeHealth(server.url, { everyMs: 1000, count: null });
    const rssTimer = setInterval(() => {
      const mb = server.rssMb();
      if (mb !== null) rss.push([(performance.now() - started) / MINUTE_MS, mb]);
    }, 5000);
    let cpuMark = processCpuMs(server.pid);
    const minuteTimer = setInterval(() => {
      // The server's CPU over the minute (every thread), as a share of one core: how near saturation the mix runs it.
      const cpu = processCpuMs(server.pid);
      const busy = cpu !== null && cpuMark !== null ? `; server CPU ${(((cpu - cpuMark) / MINUTE_MS) * 100).toFixed(0)}% of a core` : '';
      cpuMark = cpu;
      void loopDelay(server).then((d) => {
        loops.push(d);
        const m = loops.length;
        const routes = rec.minutes[m - 1];
        const all = routes ? [...routes.values()].flat() : [];
        console.log(
          `minute ${m}: ${all.length} requests, p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms; event loop p99 ${d.p99} ms, max ${d.max} ms; RSS ${server.rssMb()?.toFixed(0)} MB${busy}`,
        );
      });
    }, MINUTE_MS);
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, server, rec, until)));
    healthProbe.stop();
    for (const sample of await healthProbe.samples) health.record('GET /health', sample);
    clearInterval(rssTimer);
    clearInterval(minuteTimer);
    if (loops.length < MINUTES) loops.push(await loopDelay(server));
    const summary = (await (await server.api('/findings/summary?days=365')).json()) as { total: number };
    const rest = await atRest(server);
    report(rec, health, loops, rss, summary.total);
    console.log(
      `at rest after the soak (org of ${summary.total} findings), median of ${REST_CALLS} calls one at a time: ${rest.map(([route, ms]) => `${route} ${ms.toFixed(1)} ms`).join(', ')}`,
    );
  } finally {
    clearInterval(latency);
    await server.stop();
    await fake.close();
  }
}

function report(rec: Recorder, health: Recorder, loops: readonly LoopDelay[], rss: readonly [number, number][], findingsTotal: number): void {
  const routes = [...new Set(rec.minutes.flatMap((m) => [...m.keys()]))].sort();
  const cell = (values: readonly number[] | undefined) => (values?.length ? `${percentile(values, 50).toFixed(0)} / ${percentile(values, 99).toFixed(0)}` : '');
  console.log(`\nPer-minute p50 / p99 (ms), ${CLIENTS} clients, ${THINK_MS} ms think time, ${MINUTES} min:`);
  const table: Record<string, Record<string, string>> = {};
  for (const route of routes) table[route] = Object.fromEntries(rec.minutes.map((m, i) => [`min ${i + 1}`, cell(m.get(route))]));
  table['GET /health (1/s)'] = Object.fromEntries(health.minutes.map((m, i) => [`min ${i + 1}`, cell(m.get('GET /health'))]));
  table['event loop delay p99 / max'] = Object.fromEntries(loops.map((d, i) => [`min ${i + 1}`, `${d.p99} / ${d.max}`]));
  console.table(table);

  const healthP99 = health.minutes.map((m) => percentile(m.get('GET /health') ?? [], 99));
  const afterWarmUp = rss.filter(([t]) => t >= 1);
  console.log(
    `requests ${rec.requests + health.requests}; 5xx ${rec.serverErrors + health.serverErrors}; connection errors ${rec.connectionErrors + health.connectionErrors}`,
  );
  if (rec.otherNon2xx.size > 0) console.log(`other non-2xx: ${[...rec.otherNon2xx].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  console.log(`findings in the org at the end: ${findingsTotal}`);
  console.log(
    `RSS: start ${rss[0]?.[1].toFixed(0)} MB, peak ${Math.max(...rss.map(([, y]) => y)).toFixed(0)} MB, end ${rss[rss.length - 1]?.[1].toFixed(0)} MB; slope after the first minute ${slope(afterWarmUp).toFixed(2)} MB/min`,
  );
  console.log(`event loop: max of the per-minute p99 ${Math.max(...loops.map((d) => d.p99))} ms, overall max ${Math.max(...loops.map((d) => d.max))} ms`);
  console.log(
    `goal /health p99 ≤ ${HEALTH_GOAL_MS} ms every minute: ${healthP99.every((p) => p <= HEALTH_GOAL_MS) ? 'PASS' : 'FAIL'} (${healthP99.map((p) => p.toFixed(0)).join(', ')})`,
  );
  if (rec.minutes.length >= 3) {
    const second = rec.minutes[1];
    const last = rec.minutes[rec.minutes.length - 1];
    for (const route of routes) {
      const a = percentile(second.get(route) ?? [], 99);
      const b = percentile(last.get(route) ?? [], 99);
      const pass = b <= GROWTH_GOAL * a;
      console.log(`goal last-minute p99 ≤ ${GROWTH_GOAL}× second minute's, ${route}: ${a.toFixed(0)} → ${b.toFixed(0)} ms ${pass ? 'PASS' : 'FAIL'}`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
