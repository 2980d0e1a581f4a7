/**
 * Checks-only analysis against Checkov, on complete synthetic plans (lib.ts planOfSize) of
 * 10 KiB, 1, 5 and 10 MiB:
 *   - in process: ingest + checks + report (the Markdown report and the SARIF log), the engine's
 *     store-less checks-only run (engine/src/report/checks-only.ts, what `planwarden analyze`
 *     runs in local mode), median of RUNS after one warm-up;
 *   - as a process: `planwarden analyze plan.json` (compiled, checks only, report written), wall
 *     time from spawn to exit, median of RUNS;
 * each beside the Checkov 3.3 figures recorded elsewhere (Checkov cannot be installed from the
 * registries these machines reach), with the ratio, and the per-MiB linearity of the in-process
 * time (the 10 MiB per-MiB time within 1.2× of the 1 MiB one). Prints figures; asserts nothing.
 *
 * Usage: `npx tsx bench/run-all.ts checkov`, or `npx tsx bench/checkov-ratio.bench.ts`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnalyzerRegistry } from '../engine/src/analyzers/registry';
import { ChecksOnlyRun } from '../engine/src/report/checks-only';
import { renderReport } from '../engine/src/report/render';
import { serializeSarif } from '../engine/src/report/sarif';
import { buildCli, CLI_MAIN, isStale } from '../server/scripts/build.mjs';
import { median, planOfSize, REPO_DIR, type BenchRow } from './lib';
import { loadNote, timeProcess, type ProcessTiming } from './process-timing';

const RUNS = 3;
const MIB = 1024 * 1024;
const BIN = join(REPO_DIR, 'server/bin/planwarden.js');

/** Checkov 3.3 on plans of about these sizes, median of 3 interleaved runs, 2 cores, loaded machine: recorded elsewhere. */
interface CheckovFigure {
  readonly plan: string;
  /** Checkov's plan runner in process, s. */
  readonly inProcessS: number;
  /** `checkov -f plan.json` as a process, s. */
  readonly processS: number;
}

const SIZES: readonly { readonly label: string; readonly bytes: number; readonly checkov: CheckovFigure }[] = [
  { label: '10 KiB', bytes: 10 * 1024, checkov: { plan: '14 KiB, 3 resources', inProcessS: 1.23, processS: 5.55 } },
  { label: '1 MiB', bytes: MIB, checkov: { plan: '1 MiB, 499 changes', inProcessS: 7.96, processS: 14.8 } },
  { label: '5 MiB', bytes: 5 * MIB, checkov: { plan: '5 MiB, 2,459 changes', inProcessS: 26.8, processS: 32.9 } },
  { label: '10 MiB', bytes: 10 * MIB, checkov: { plan: '10 MiB, 4,915 changes', inProcessS: 56.4, processS: 68.2 } },
];

/** Goals: in process ≥ 10× faster than Checkov's runner, the process ≥ 5× faster than Checkov's. */
const IN_PROCESS_RATIO = 10;
const PROCESS_RATIO = 5;
const LINEARITY = 1.2;

/** Seconds of one checks-only analysis of `text`: ingest and checks, then the Markdown report and the SARIF log. */
async function analyseOnce(text: string): Promise<number> {
  const started = performance.now();
  const run = new ChecksOnlyRun(createAnalyzerRegistry(), 'checkov-ratio', 500 * MIB);
  run.analyse(null, text, null);
  await renderReport(run.reportModel(), { format: 'markdown' });
  serializeSarif(run.sarif());
  return (performance.now() - started) / 1000;
}

/** Timing of `planwarden analyze file` (compiled) from spawn to exit. */
function cliOnce(file: string, report: string): Promise<ProcessTiming> {
  return timeProcess([BIN, 'analyze', file, '--fail-on', 'none', '--output', report], { cwd: REPO_DIR });
}

const s = (n: number) => `${n.toFixed(n < 1 ? 3 : 2)} s`;

/** The figures above; `log` gets one line per plan and the linearity. */
export async function benchCheckovRatio(log: (line: string) => void): Promise<BenchRow[]> {
  if (isStale(CLI_MAIN)) log(`  built the compiled command in ${await buildCli()} ms`);
  const work = mkdtempSync(join(tmpdir(), 'planwarden-checkov-ratio-'));
  const rows: BenchRow[] = [];
  try {
    await analyseOnce(planOfSize(10 * 1024, 'warm').text); // loads the engine, compiles the checks
    const perMib = new Map<string, number>();
    for (const size of SIZES) {
      const { text, units } = planOfSize(size.bytes, 'ratio');
      const file = join(work, `plan-${size.bytes}.json`);
      writeFileSync(file, text);
      const ours: number[] = [];
      const cli: ProcessTiming[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        ours.push(await analyseOnce(text));
        // Others editing the sources would make the bin rebuild inside the timed run: build here.
        if (isStale(CLI_MAIN)) await buildCli();
        cli.push(await cliOnce(file, join(work, 'report.md')));
      }
      const [a, p] = [median(ours), median(cli.map((t) => t.wallMs)) / 1000];
      const cpus = cli.map((t) => t.cpuMs);
      const cpu = cpus.every((c) => c !== null) ? `, CPU ${s(median(cpus as number[]) / 1000)}` : '';
      const mib = Buffer.byteLength(text) / MIB;
      perMib.set(size.label, a / mib);
      const { checkov } = size;
      const inRatio = checkov.inProcessS / a;
      const procRatio = checkov.processS / p;
      log(
        `  ${size.label} (${units} changes): in process ${s(a)} (${(a / mib).toFixed(2)} s/MiB) vs Checkov ${checkov.inProcessS} s = ${inRatio.toFixed(1)}×; ` +
          `CLI process ${s(p)}${cpu} vs Checkov ${checkov.processS} s = ${procRatio.toFixed(1)}× (${loadNote()})`,
      );
      const recorded = `Checkov ${checkov.plan} (recorded elsewhere)`;
      rows.push({
        item: '29 vs Checkov',
        figure: `checks-only in process, ${size.label} plan (${units} changes)`,
        value: s(a),
        baseline: `${recorded}: ${checkov.inProcessS} s, ratio ${inRatio.toFixed(1)}×`,
        target: `≥ ${IN_PROCESS_RATIO}×`,
        pass: inRatio >= IN_PROCESS_RATIO,
        note: `ingest + checks + Markdown and SARIF; median of ${RUNS}`,
      });
      rows.push({
        item: '29 vs Checkov',
        figure: `\`planwarden analyze\` process, ${size.label} plan`,
        value: s(p),
        baseline: `${recorded}: ${checkov.processS} s, ratio ${procRatio.toFixed(1)}×`,
        target: `≥ ${PROCESS_RATIO}×`,
        pass: procRatio >= PROCESS_RATIO,
        note: `compiled, checks only, report written; median of ${RUNS}, whole process${cpu}; ${loadNote()}`,
      });
    }
    const [one, ten] = [perMib.get('1 MiB')!, perMib.get('10 MiB')!];
    log(`  linearity: ${ten.toFixed(2)} s/MiB at 10 MiB against ${one.toFixed(2)} s/MiB at 1 MiB = ${(ten / one).toFixed(2)}×`);
    rows.push({
      item: '29 vs Checkov',
      figure: 'checks-only per MiB, 10 MiB against 1 MiB',
      value: `${(ten / one).toFixed(2)}×`,
      baseline: `${one.toFixed(2)} s/MiB at 1 MiB, ${ten.toFixed(2)} s/MiB at 10 MiB`,
      target: `≤ ${LINEARITY}×`,
      pass: ten / one <= LINEARITY,
    });
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchCheckovRatio(console.log).then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
