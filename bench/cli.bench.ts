/**
 * The `planwarden` command as a whole process: wall time from spawning `node
 * server/bin/planwarden.js …` until the process exits, for `--help`, for `analyze` (checks only,
 * report written) on the README's sample plan, on a plan of 100 resources (also on the local
 * server, which a --data-dir starts) and on a ~1 MiB plan.
 * Each beside its same-run baselines: the same command run from the TypeScript sources through
 * tsx (PLANWARDEN_CLI_FROM_SOURCE=1, what the bin did before it ran the compiled bundle), and
 * `node -e ''` (Node's own start-up). Runs are interleaved (node, compiled, source, …) so a burst
 * of other work on a shared machine hits every kind alike; figures are medians, of the wall time
 * and of the CPU time each process used (process-timing.ts), which a loaded machine inflates far
 * less. The compiled bundle is rebuilt, untimed, before any run that would find it stale, so no
 * rebuild is timed. Prints figures; asserts nothing.
 *
 * Usage: `npx tsx bench/run-all.ts cli`, or `npx tsx bench/cli.bench.ts`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, CLI_MAIN, isStale } from '../server/scripts/build.mjs';
import { REPO_DIR, median, ms, planOfSize, planOfUnits, type BenchRow } from './lib';
import { loadNote, timeProcess, type ProcessTiming } from './process-timing';

const RUNS = 3;
const BIN = join(REPO_DIR, 'server/bin/planwarden.js');
/** issue: a plan of 100 resources, checks only, report written, within this. */
const HUNDRED_GOAL_MS = 500;

/** Timing of `node args` from spawn to exit (exit codes 0 and 1 are the command's answers). */
function timeToExit(args: readonly string[], env: Record<string, string>): Promise<ProcessTiming> {
  return timeProcess(args, { cwd: REPO_DIR, env, codes: [0, 1] });
}

/** Median wall and CPU ms of `timings` (CPU null without /proc). */
function medians(timings: readonly ProcessTiming[]): { wall: number; cpu: number | null } {
  const cpu = timings.map((t) => t.cpuMs);
  return { wall: median(timings.map((t) => t.wallMs)), cpu: cpu.every((c) => c !== null) ? median(cpu as number[]) : null };
}

const cpuText = (cpu: number | null) => (cpu === null ? '' : `, CPU ${ms(cpu, 0)}`);
/** CPU beyond Node's own start-up (the same run's `node -e ''`): what the command itself costs. */
const cpuOverNode = (cpu: number | null, node: number | null) => (cpu === null || node === null ? '' : ` (${ms(cpu - node, 0)} over node -e '')`);

interface Case {
  readonly figure: string;
  /** The command line of one run (a function: each run gets its own, e.g. a fresh --data-dir). */
  readonly args: () => readonly string[];
  readonly goalMs?: number;
}

/** The figures above; `log` gets one line per case. */
export async function benchCli(log: (line: string) => void): Promise<BenchRow[]> {
  if (isStale(CLI_MAIN)) log(`  built the compiled command in ${await buildCli()} ms`);
  const work = mkdtempSync(join(tmpdir(), 'planwarden-cli-bench-'));
  try {
    const hundred = join(work, 'plan-100.json');
    writeFileSync(hundred, planOfUnits(100, 'bench'));
    const large = join(work, 'plan-1mib.json');
    const { text, units } = planOfSize(1024 * 1024, 'bench');
    writeFileSync(large, text);
    const report = join(work, 'report.md');
    const analyze = (file: string) => () => ['analyze', file, '--fail-on', 'none', '--output', report];
    let dataDirs = 0;
    const cases: Case[] = [
      { figure: '`planwarden --help`', args: () => ['--help'] },
      { figure: '`analyze` sample plan (azure-firewall, 11 resources)', args: analyze('resources/examples/azure-firewall-plan.json') },
      { figure: '`analyze` plan of 100 resources', args: analyze(hundred), goalMs: HUNDRED_GOAL_MS },
      // The same run on the local server (a fresh --data-dir starts it): what the checks-only run cost before it ran in process.
      {
        figure: '`analyze --data-dir` plan of 100 resources (local server)',
        args: () => [...analyze(hundred)(), '--data-dir', join(work, `data-${(dataDirs += 1)}`)],
      },
      { figure: `\`analyze\` ~1 MiB plan (${units} changes)`, args: analyze(large) },
    ];
    const rows: BenchRow[] = [];
    for (const c of cases) {
      const node: ProcessTiming[] = [];
      const compiled: ProcessTiming[] = [];
      const source: ProcessTiming[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        node.push(await timeToExit(['-e', ''], {}));
        // Others editing the sources would make the bin rebuild inside the timed run: build here.
        if (isStale(CLI_MAIN)) await buildCli();
        compiled.push(await timeToExit([BIN, ...c.args()], {}));
        source.push(await timeToExit([BIN, ...c.args()], { PLANWARDEN_CLI_FROM_SOURCE: '1' }));
      }
      const [n, a, b] = [medians(node), medians(compiled), medians(source)];
      log(
        `  ${c.figure}: compiled ${ms(a.wall, 0)}${cpuText(a.cpu)}${cpuOverNode(a.cpu, n.cpu)}; from source (tsx) ${ms(b.wall, 0)}${cpuText(b.cpu)}; ` +
          `node -e '' ${ms(n.wall, 0)}${cpuText(n.cpu)} (${loadNote()})`,
      );
      rows.push({
        item: '29 CLI process',
        figure: c.figure,
        value: ms(a.wall, 0),
        baseline: `tsx ${ms(b.wall, 0)} (${(b.wall / a.wall).toFixed(1)}×); node ${ms(n.wall, 0)}`,
        target: c.goalMs ? `≤ ${ms(c.goalMs, 0)}` : '-',
        pass: c.goalMs ? a.wall <= c.goalMs : null,
        note: `median of ${RUNS} interleaved runs, whole process${cpuText(a.cpu)}${cpuOverNode(a.cpu, n.cpu)} (node -e '' ${n.cpu === null ? '-' : ms(n.cpu, 0)}), ${loadNote()}`,
      });
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchCli(console.log).then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
