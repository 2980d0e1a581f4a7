/**
 * Job progress costs O(1) per unit (docs/decisions.md "Job progress"): the per-unit progress write
 * (`JobStore.progress`) and the runner's per-unit job read (`JobStore.get`) on the SQLite file
 * store, for jobs of 100, 1,000 and 10,000 units. Baseline, same run: the same write on a job
 * stored as before the split (its unit hashes inline in the job document, which every progress
 * step re-read and re-wrote). Target: the 10k-unit cost within 2× of the 100-unit one.
 * `npx tsx bench/job-progress.bench.ts` runs it alone; `npm run bench -- progress` through run-all.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_INDEXES, JobStore, type NewJob } from '../engine/src/analysis/job-store';
import { openStore } from '../engine/src/store/open-store';
import type { Store } from '../engine/src/store/port';
import { median, type BenchRow } from './lib';

const SIZES = [100, 1_000, 10_000] as const;
/** Progress writes timed per measurement (the same count at every size: the cost per write is what is compared). */
const STEPS = 400;
const REPS = 3;

function hashes(n: number, prefix: string): string[] {
  return Array.from({ length: n }, (_, i) => createHash('sha256').update(`${prefix}-${i}`).digest('hex'));
}

function newJob(units: string[]): NewJob {
  return {
    org_id: 'bench',
    namespace: 'bench',
    analyzer: 'terraform',
    analyzers_used: [],
    detections: [],
    mode: 'async',
    status: 'running',
    trigger: 'api',
    external_ref: null,
    resource_count: units.length,
    total_count: units.length,
    llm_backend: 'openai',
    model: 'gpt-4o-mini',
    rule_type: null,
    retry_of: null,
    hashes: units,
    key_source: 'stored',
  };
}

/** Mean ms per call of `step` over STEPS calls (median of REPS). */
async function perCall(step: (i: number) => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let rep = 0; rep < REPS; rep += 1) {
    const start = performance.now();
    for (let i = 0; i < STEPS; i += 1) await step(i);
    runs.push((performance.now() - start) / STEPS);
  }
  return median(runs);
}

interface SizeFigures {
  readonly units: number;
  readonly progressMs: number;
  readonly getMs: number;
  readonly inlineProgressMs: number;
}

async function measure(store: Store, jobs: JobStore, units: number): Promise<SizeFigures> {
  const now = () => new Date().toISOString();
  const job = await jobs.create(newJob(hashes(units, `split-${units}`)), now());
  const progress = (i: number) =>
    jobs.progress('bench', job.job_id, { processed_count: i, current_resource: { hash: job.hashes[i % units], resource_address: `r.${i}`, type: 'r' } }, now());
  await perCall(progress); // warm-up
  const progressMs = await perCall(progress);
  const getMs = await perCall(() => jobs.get('bench', job.job_id));
  // The layout before the split: the hashes inside the job document (still read for old jobs).
  const inline = { ...job, job_id: `inline-${units}`, hashes: hashes(units, `inline-${units}`) };
  await store.collection('jobs').insertOne(inline);
  const inlineProgressMs = await perCall((i) =>
    jobs.progress(
      'bench',
      inline.job_id,
      { processed_count: i, current_resource: { hash: inline.hashes[i % units], resource_address: `r.${i}`, type: 'r' } },
      now(),
    ),
  );
  return { units, progressMs, getMs, inlineProgressMs };
}

/** Runs the benchmark; returns its rows (run-all.ts). */
export async function benchJobProgress(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-bench-progress-'));
  const store = await openStore({ backend: 'sqlite', dataDir: dir });
  try {
    for (const [name, specs] of Object.entries(JOB_INDEXES)) await store.ensureIndexes(name, specs);
    const jobs = new JobStore(store);
    const figures: SizeFigures[] = [];
    for (const units of SIZES) {
      const f = await measure(store, jobs, units);
      figures.push(f);
      log(
        `  ${String(units).padStart(6)} units: progress ${f.progressMs.toFixed(3)} ms/unit, job read ${f.getMs.toFixed(3)} ms/unit; ` +
          `hashes inline (before): progress ${f.inlineProgressMs.toFixed(3)} ms/unit`,
      );
    }
    const small = figures[0];
    const large = figures[figures.length - 1];
    const ratio = large.progressMs / small.progressMs;
    return [
      ...figures.map((f) => ({
        item: '29 job progress',
        figure: `progress write, ${f.units} units (sqlite)`,
        value: `${f.progressMs.toFixed(3)} ms/unit`,
        baseline: `${f.inlineProgressMs.toFixed(3)} ms/unit hashes inline`,
        target: '-',
        pass: null,
        note: `job read (the runner's per-unit check) ${f.getMs.toFixed(3)} ms/unit`,
      })),
      {
        item: '29 job progress',
        figure: `progress write ${large.units} / ${small.units} units`,
        value: `${ratio.toFixed(2)}×`,
        baseline: `${(large.inlineProgressMs / small.inlineProgressMs).toFixed(2)}× hashes inline`,
        target: '≤ 2×',
        pass: ratio <= 2,
      },
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await benchJobProgress();
  console.table(rows.map((r) => ({ figure: r.figure, value: r.value, baseline: r.baseline, target: r.target })));
}
