/**
 * `npm run bench` (issue 6): every benchmark in turn, each figure beside its same-run baseline
 * and target with PASS/MISS, then the run appended to bench/RESULTS.md (date, machine, figures).
 * `npm run bench -- report prompt` runs only the named ones (ingest, health, findings, jobs,
 * prompt, report, startup, cli, checkov, web). Never part of `npm test`. Servers listen on 127.0.0.1 and are stopped before exit.
 */
import { execSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { benchFindingsList } from './findings-list.bench';
import { benchHealthUnderIngest } from './health-under-ingest.bench';
import { ingestBreakdown } from './ingest-breakdown';
import { floorRows, ingestFloor } from './ingest-floor';
import { benchIngest } from './ingest.bench';
import { benchJobRunner } from './job-runner.bench';
import { REPO_DIR, verdict, type BenchRow } from './lib';
import { benchPrompt } from './prompt.bench';
import { benchReport } from './report.bench';
import { benchStartup } from './startup.bench';
import { benchWeb } from './web';
import type { RecordedRequest } from '../tests/fakes/llm-provider-server';

const log = (line: string) => console.log(line);

async function main(): Promise<void> {
  const only = new Set(process.argv.slice(2));
  const wanted = (name: string) => only.size === 0 || only.has(name);
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  let requests: readonly RecordedRequest[] = [];

  const step = async (name: string, item: string, fn: () => Promise<BenchRow[]>) => {
    if (!wanted(name)) return;
    log(`== ${name}`);
    const started = Date.now();
    try {
      rows.push(...(await fn()));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(`  ${name} failed: ${message}`);
      rows.push({ item, figure: `${name} benchmark`, value: 'failed', baseline: '-', target: '-', pass: null, note: message.slice(0, 200) });
    }
    log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  };

  await step('report', '6 report', () => benchReport(log));
  await step('jobs', '3 job runner', async () => {
    const result = await benchJobRunner(log);
    requests = result.requests;
    return result.rows;
  });
  await step('prompt', '5 prompt', () => benchPrompt(requests, log));
  await step('progress', '29 job progress', async () => (await import('./job-progress.bench')).benchJobProgress(log));
  await step('ingest', '1 ingest', async () => {
    const figures: { perMbAt10?: number } = {};
    const result = await benchIngest(log, figures);
    const b = await ingestBreakdown();
    const line =
      `ingest breakdown (in process, sqlite, ${b.mb.toFixed(1)} MB, ${b.units} units): JSON.parse ${b.jsonParseMs.toFixed(0)} ms; ` +
      `terraform analyzer.ingest ${b.analyzerIngestMs.toFixed(0)} ms (extractPlanJson ${b.extractMs.toFixed(0)} ms, planJsonUnits render+hash ${b.unitsMs.toFixed(0)} ms, pre-optimisation code ${b.legacyUnitsMs.toFixed(0)} ms); ` +
      `ResourceStore.addUnits ${b.addUnitsMs.toFixed(0)} ms = ${(b.addUnitsMs / b.units).toFixed(2)} ms/unit ` +
      `(for reference, one-by-one port calls as in the addOneByOne fallback, per unit: resources upsert ${b.perUnit.upsertResourceMs.toFixed(3)} ms, findOne ${b.perUnit.findOneMs.toFixed(3)} ms, namespace_resources upsert ${b.perUnit.upsertMemberMs.toFixed(3)} ms, each its own transaction)`;
    log(`  ${line}`);
    notes.push(line);
    return [...result, ...floorRows(await ingestFloor(), figures.perMbAt10)];
  });
  await step('health', '18 no stalls', () => benchHealthUnderIngest(log));
  await step('findings', '2 findings list', () => benchFindingsList(log));
  await step('aggregates', '31 aggregates', async () => (await import('./aggregates.bench')).benchAggregates(log));
  await step('startup', '18 start-up', () => benchStartup(log));
  await step('cli', '29 CLI process', async () => (await import('./cli.bench')).benchCli(log));
  await step('checkov', '29 vs Checkov', async () => (await import('./checkov-ratio.bench')).benchCheckovRatio(log));
  await step('web', '9 dashboard', () => benchWeb(log));

  printTable(rows);
  record(rows, notes, [...only]);
}

function printTable(rows: readonly BenchRow[]): void {
  console.log('');
  console.table(rows.map((r) => ({ item: r.item, figure: r.figure, value: r.value, baseline: r.baseline, target: r.target, result: verdict(r.pass) })));
  for (const r of rows) if (r.note) console.log(`  ${r.item} / ${r.figure}: ${r.note}`);
}

function sh(command: string): string {
  try {
    return execSync(command, { encoding: 'utf8' }).trim();
  } catch {
    return '(unavailable)';
  }
}

function record(rows: readonly BenchRow[], notes: readonly string[], only: readonly string[]): void {
  const file = join(REPO_DIR, 'bench/RESULTS.md');
  if (!existsSync(file)) {
    writeFileSync(
      file,
      '# Benchmark results\n\nAppended by `npm run bench` (bench/run-all.ts), newest last. Each figure sits beside a baseline measured in the same run, so compare ratios across runs, not raw times.\n',
    );
  }
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    '',
    `## ${new Date().toISOString()}${only.length ? ` (only: ${only.join(', ')})` : ''}`,
    '',
    `- nproc: ${sh('nproc')} (${cpus()[0]?.model ?? 'unknown CPU'}); node ${process.version}; git ${sh(`git -C "${REPO_DIR}" rev-parse --short HEAD`)} (+ working tree)`,
    '- free -h:',
    '',
    '```',
    sh('free -h'),
    '```',
    '',
    '| item | figure | value | same-run baseline | target | result | note |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${cell(r.item)} | ${cell(r.figure)} | ${cell(r.value)} | ${cell(r.baseline)} | ${cell(r.target)} | ${verdict(r.pass)} | ${cell(r.note ?? '')} |`,
    ),
    ...(notes.length ? ['', ...notes.map((n) => `- ${n}`)] : []),
    '',
  ];
  appendFileSync(file, lines.join('\n'));
  console.log(`\nrecorded in ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
