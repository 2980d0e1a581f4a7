/**
 * The `planwarden` command as a whole process: wall time from spawning `node
 * server/bin/planwarden.js …` until the process exits, for `--help`, for `analyze` (checks only,
 * report written) on the README's sample plan, on a plan of 100 resources (also on the local
 * server, which a --data-dir starts) and on a ~1 MiB plan.
 * Each beside its same-run baselines: the same command run from the TypeScript sources through
 * tsx (PLANWARDEN_CLI_FROM_SOURCE=1, what the bin did before it ran the compiled bundle), and
 * `node -e ''` (Node's own start-up). Runs are interleaved (node, compiled, source, …) so a burst
 * of other work on a shared machine hits every kind alike; figures are medians. The compiled
 * bundle is rebuilt, untimed, before any run that would find it stale, so no rebuild is timed.
 * Prints figures; asserts nothing.
 *
 * Usage: `npx tsx bench/run-all.ts cli`, or `npx tsx bench/cli.bench.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, CLI_MAIN, isStale } from '../server/scripts/build.mjs';
import { REPO_DIR, median, ms, planOfSize, planOfUnits, type BenchRow } from './lib';

const RUNS = 3;
const BIN = join(REPO_DIR, 'server/bin/planwarden.js');
/** issue: a plan of 100 resources, checks only, report written, within this. */
const HUNDRED_GOAL_MS = 500;

/** ms from spawning `node args` until it exits; rejects when it exits with a code other than `codes`. */
function timeToExit(args: readonly string[], env: Record<string, string>, codes: readonly number[] = [0, 1]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: 'ignore', env: { ...process.env, ...env } });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (codes.includes(code ?? -1)) resolve(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')} exited ${code}`));
    });
  });
}

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
      const node: number[] = [];
      const compiled: number[] = [];
      const source: number[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        node.push(await timeToExit(['-e', ''], {}));
        // Others editing the sources would make the bin rebuild inside the timed run: build here.
        if (isStale(CLI_MAIN)) await buildCli();
        compiled.push(await timeToExit([BIN, ...c.args()], {}));
        source.push(await timeToExit([BIN, ...c.args()], { PLANWARDEN_CLI_FROM_SOURCE: '1' }));
      }
      const [n, a, b] = [median(node), median(compiled), median(source)];
      log(`  ${c.figure}: compiled ${ms(a, 0)}, from source (tsx) ${ms(b, 0)}, node -e '' ${ms(n, 0)}`);
      rows.push({
        item: '29 CLI process',
        figure: c.figure,
        value: ms(a, 0),
        baseline: `tsx ${ms(b, 0)} (${(b / a).toFixed(1)}×); node ${ms(n, 0)}`,
        target: c.goalMs ? `≤ ${ms(c.goalMs, 0)}` : '-',
        pass: c.goalMs ? a <= c.goalMs : null,
        note: `median of ${RUNS} interleaved runs, whole process`,
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
