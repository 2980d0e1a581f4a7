/**
 * Item 1: ingest over HTTP of 1, 5 and ~10 MB Terraform plan JSON into the real server (child
 * process, sqlite in a temp dir). Figures: ms per MB, ratio to V8 JSON.parse of the same text
 * (measured in this run), per-MB growth 10 MB vs 1 MB, and the server's peak RSS (VmHWM).
 */
import { compiledServerEnv, compiledServerScript } from './compiled-server';
import { median, ms, planOfSize, startServerChild, timed, type BenchRow } from './lib';

const MB = 1024 * 1024;
/** The ingest limit is 10 MiB; the "10 MB" plan stays a little under it. */
const SIZES = [
  { label: '1 MB', bytes: 1 * MB },
  { label: '5 MB', bytes: 5 * MB },
  { label: '10 MB', bytes: 10 * MB - 64 * 1024 },
] as const;
const REPS = 3;
/** Stop repeating a size once its ingests took this long in total. */
const SIZE_BUDGET_MS = 60_000;

/**
 * The rows above; `figures.perMbAt10` receives the 10 MB plan's ms/MB, for the comparison with
 * the floor over HTTP (ingest-floor.ts floorRows) that run-all.ts makes in the same run.
 */
export async function benchIngest(log: (line: string) => void = console.log, figures: { perMbAt10?: number } = {}): Promise<BenchRow[]> {
  const server = await startServerChild(compiledServerEnv(), { script: await compiledServerScript() });
  const rows: BenchRow[] = [];
  let restRss: number | null = null;
  try {
    // At rest: a second after start, before any request.
    await new Promise((r) => setTimeout(r, 1000));
    restRss = server.rssMb();
    // Warm-up: JIT, sqlite page cache, first-request paths.
    const warm = planOfSize(256 * 1024, 'warm');
    await ingest(server, 'bench-warm', warm.text);

    const perMb: Record<string, number> = {};
    for (const size of SIZES) {
      const serverMs: number[] = [];
      const parseMs: number[] = [];
      let units = 0;
      let actualBytes = 0;
      let spent = 0;
      for (let rep = 0; rep < REPS && spent < SIZE_BUDGET_MS; rep += 1) {
        // Fresh addresses per size and rep: every ingest creates new resources, as a new plan would.
        const plan = planOfSize(size.bytes, `s${size.bytes}r${rep}`);
        units = plan.units;
        actualBytes = Buffer.byteLength(plan.text);
        const t = await timed(() => ingest(server, `bench-ingest-${size.bytes}-${rep}`, plan.text));
        if (t.value !== plan.units) throw new Error(`ingest returned ${t.value} units, plan has ${plan.units}`);
        serverMs.push(t.ms);
        spent += t.ms;
        for (let i = 0; i < 3; i += 1) parseMs.push((await timed(() => JSON.parse(plan.text) as unknown)).ms);
      }
      const mb = actualBytes / MB;
      const s = median(serverMs);
      const p = median(parseMs);
      perMb[size.label] = s / mb;
      log(
        `  ingest ${size.label}: ${units} units, ${mb.toFixed(2)} MB, server ${serverMs.map((v) => v.toFixed(0)).join('/')} ms, JSON.parse ${p.toFixed(1)} ms`,
      );
      rows.push({
        item: '1 ingest',
        figure: `ingest ${size.label} (${units} units): ms/MB`,
        value: `${(s / mb).toFixed(1)} ms/MB (${ms(s, 0)} total)`,
        baseline: `JSON.parse ${(p / mb).toFixed(1)} ms/MB`,
        target: '≤ 5× JSON.parse',
        pass: s / p <= 5,
        note: `ratio ${(s / p).toFixed(1)}×`,
      });
    }
    figures.perMbAt10 = perMb['10 MB'];
    const growth = perMb['10 MB'] / perMb['1 MB'];
    rows.push({
      item: '1 ingest',
      figure: 'ms/MB at 10 MB vs at 1 MB',
      value: `${growth.toFixed(2)}×`,
      baseline: `1 MB: ${perMb['1 MB'].toFixed(1)} ms/MB`,
      target: '≤ 1.2×',
      pass: growth <= 1.2,
    });
    const peak = server.peakRssMb();
    rows.push({
      item: '1 ingest',
      figure: 'server peak RSS (VmHWM)',
      value: peak === null ? 'n/a' : `${peak.toFixed(0)} MB`,
      baseline: `after start: ${startRss?.toFixed(0) ?? 'n/a'} MB`,
      target: '≤ 300 MB',
      pass: peak === null ? null : peak <= 300,
    });
    rows.push({
      item: '1 ingest',
      figure: 'server RSS at rest after start (VmRSS)',
      value: restRss === null ? 'n/a' : `${restRss.toFixed(0)} MB`,
      baseline: `peak during start (VmHWM): ${startRss?.toFixed(0) ?? 'n/a'} MB`,
      target: '≤ 120 MB',
      pass: restRss === null ? null : restRss <= 120,
      note: process.env.BENCH_TS === '1' ? 'server under tsx (BENCH_TS=1)' : 'compiled server (as npm start)',
    });
  } finally {
    await server.stop();
  }
  return rows;

  async function ingest(s: typeof server, namespace: string, text: string): Promise<number> {
    startRss ??= s.peakRssMb();
    const res = await s.api(`/terraform/${namespace}/ingest`, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    if (res.status !== 201) throw new Error(`ingest ${namespace}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    return ((await res.json()) as unknown[]).length;
  }
}
let startRss: number | null = null;

if (import.meta.url === `file://${process.argv[1]}`) {
  benchIngest().then(
    (rows) => console.table(rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
