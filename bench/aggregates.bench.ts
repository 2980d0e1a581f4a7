/**
 * Aggregates that do not grow with the org (docs/decisions.md "Aggregate counters"): the
 * findings summary (findingsSummary) and the usage document (usageDocument), in process on a
 * sqlite file, at 100k and 1M findings, with as many metered calls in the month.
 *
 * Findings are written straight into the file (findings-list.bench.ts seedFindings: one per
 * second from 2026-01-01, so about 86,400 first seen per day, 1M spanning 11.6 days), calls
 * through the port's insertMany; neither touches the counters, so the first read of each builds
 * its counter from the rows (a one-time paged pass). Same-run baseline: the summary's count
 * queries as every read ran them before the counters (13 counts over the org's records). Then READS reads of each, one at a time:
 * p50 and p99. The summary is measured at two windows: 30 days (its first day before the data)
 * and 7 days (its first day cut through the seeded range: the rest of that day comes from its
 * hour counter, and only the window's first hour, 3,600 records at 1M, is a range count of rows).
 *
 * Rule health (GET /rule-health) and the calibration block every analysis job reads
 * (calibrationText) answer from the feedback counter: the log is seeded with one feedback entry
 * per ten findings over 40 rules (written by the port, so the first read builds the counter).
 *
 * Usage: `npx tsx bench/run-all.ts aggregates`, or `npx tsx bench/aggregates.bench.ts`
 * (BENCH_AGGREGATES_SIZES=100000,300000 for other sizes).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineContext } from '../engine/src/context/engine-context';
import { silentLogger } from '../engine/src/core/logger';
import { createAnalyzerRegistry } from '../engine/src/analyzers/registry';
import { builtinRuleEntries } from '../engine/src/custom-rules/custom-builtin';
import type { FeedbackDoc, Verdict } from '../engine/src/findings/feedback-store';
import { calibrationText, DEFAULT_RULE_HEALTH_SETTINGS, ruleHealth } from '../engine/src/findings/rule-health';
import { SecretBox } from '../engine/src/llm/secret-box';
import { createStores } from '../engine/src/stores';
import { nextUtcHour } from '../engine/src/findings/finding-counts';
import { findingsSummary } from '../engine/src/findings/finding-service';
import { FINDING_STATUSES, type FindingStore } from '../engine/src/findings/finding-store';
import { SEVERITY_ORDER } from '../engine/src/core/payload';
import { DEFAULT_ORG_ID } from '../engine/src/orgs/org-store';
import { openStore } from '../engine/src/store/open-store';
import type { Store } from '../engine/src/store/port';
import type { LlmCallDoc } from '../engine/src/usage/llm-call-store';
import { usageDocument } from '../engine/src/usage/usage-service';
import { seedFindings } from './findings-list.bench';
import { ms, timed, type BenchRow } from './lib';

/** BENCH_AGGREGATES_SIZES (comma-separated) replaces the sizes, e.g. `100000,300000` where 1M takes too long to seed. */
const SIZES = (process.env.BENCH_AGGREGATES_SIZES ?? '100000,1000000').split(',').map(Number);
const READS = 200;
const TARGET_MS = 10;
const NOW = new Date('2026-01-12T12:00:00.000Z');
const CALL_BATCH = 20_000;

const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/** `count` calls of the default org in NOW's month, one in ten failed, inserted by the port (no counter). */
async function seedCalls(store: Store, count: number): Promise<void> {
  const calls = store.collection<LlmCallDoc>('llm_calls');
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let from = 0; from < count; from += CALL_BATCH) {
    const batch: LlmCallDoc[] = [];
    for (let i = from; i < Math.min(count, from + CALL_BATCH); i += 1) {
      batch.push({
        org_id: DEFAULT_ORG_ID,
        job_id: `job-${i >> 6}`,
        resource_hash: randomUUID(),
        llm_backend: 'openai',
        model: 'gpt-4o-mini',
        attempt: 1,
        input_tokens: 1_000,
        output_tokens: 200,
        cost_usd: 0.00027,
        duration_ms: 400,
        error: i % 10 === 0 ? 'rate limited' : null,
        created_at: new Date(base + i * 900).toISOString(),
        idempotency_key: `job-${i >> 6}:${i}:1`,
      });
    }
    await calls.insertMany(batch);
  }
}

const FEEDBACK_RULES = 40;
const VERDICT_CYCLE: readonly Verdict[] = ['confirmed', 'confirmed', 'rejected', 'severity_wrong', 'unclear', 'missed'];

/** `count` feedback entries of the default org over FEEDBACK_RULES built-in rules, two in three trusted, inserted by the port (no counter). */
async function seedFeedback(store: Store, count: number): Promise<void> {
  const log = store.collection<FeedbackDoc>('feedback');
  // Built-in rules: their titles and severities come from the catalogue, as in production.
  const ruleIds = builtinRuleEntries(createAnalyzerRegistry())
    .slice(0, FEEDBACK_RULES)
    .map((e) => e.rule_id);
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let from = 0; from < count; from += CALL_BATCH) {
    const batch: FeedbackDoc[] = [];
    for (let i = from; i < Math.min(count, from + CALL_BATCH); i += 1) {
      batch.push({
        org_id: DEFAULT_ORG_ID,
        feedback_id: `fb-${i.toString().padStart(8, '0')}`,
        resource_hash: (i >> 3).toString(16).padStart(64, '0'),
        rule_id: ruleIds[i % ruleIds.length],
        namespace: null,
        severity: 'HIGH',
        verdict: VERDICT_CYCLE[i % VERDICT_CYCLE.length],
        reason_code: null,
        comment: i % 7 === 0 ? `reviewer note ${i}` : '',
        source: 'dashboard_triage',
        actor: null,
        trusted: i % 3 !== 0,
        provenance: { provider: null, repo: null, pr_number: null, comment_id: null },
        created_at: new Date(base + i * 9_000).toISOString(),
      });
    }
    await log.insertMany(batch);
  }
}

/** The summary's counts as it took them before the counters (one count per figure; first_seen now indexed). */
async function countQuerySummary(findings: FindingStore, days: number): Promise<number[]> {
  const since = new Date(NOW.getTime() - days * 86_400_000).toISOString();
  const filters = [
    {},
    ...FINDING_STATUSES.map((status) => ({ status })),
    ...SEVERITY_ORDER.map((severity) => ({ status: 'open', severity })),
    { first_seen: { $gte: since } },
    { status: { $in: ['acknowledged', 'suppressed', 'false_positive'] }, updated_at: { $gte: since } },
  ];
  return Promise.all(filters.map((f) => findings.count(DEFAULT_ORG_ID, f)));
}

/** p50 and p99 (nearest rank) of `n` sequential calls of `fn`, in ms. */
async function latency(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) times.push((await timed(fn)).ms);
  const sorted = times.sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: rank(0.5), p99: rank(0.99) };
}

interface SizeFigures {
  count: number;
  seedS: number;
  firstSummaryMs: number;
  /** The summary as it was computed before the counters: 13 count queries over the org's records. */
  countQueriesMs: number;
  firstUsageMs: number;
  summary30: { p50: number; p99: number };
  summary7: { p50: number; p99: number };
  /** Records first seen in the 7-day window's first hour (the range count; the rest of that day comes from its hour counter). */
  firstHour7: number;
  usage: { p50: number; p99: number };
  feedback: number;
  firstRuleHealthMs: number;
  /** Reading the whole feedback log once, as rule health did before the counter (its floor). */
  wholeLogMs: number;
  ruleHealth: { p50: number; p99: number };
  calibration: { p50: number; p99: number };
}

async function measure(count: number, log: (line: string) => void): Promise<SizeFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-bench-aggregates-'));
  try {
    const seeded = await timed(async () => {
      await seedFindings(dir, count);
      const store = await openStore({ backend: 'sqlite', dataDir: dir });
      try {
        await seedCalls(store, count);
        await seedFeedback(store, count / 10);
      } finally {
        await store.close();
      }
    });
    const store = await openStore({ backend: 'sqlite', dataDir: dir });
    try {
      const stores = createStores(store, new SecretBox('aggregates-bench-secret-material-00'));
      await stores.orgs.ensure({ org_id: DEFAULT_ORG_ID, name: 'Default', slug: 'default', created_by: null }, NOW.toISOString());
      const ctx: EngineContext = { stores, analyzers: createAnalyzerRegistry(), now: () => NOW, log: silentLogger };
      const first = await timed(() => findingsSummary(ctx, DEFAULT_ORG_ID, 30));
      const firstUsage = await timed(() => usageDocument(ctx, DEFAULT_ORG_ID));
      log(
        `  aggregates ${k(count)}: seeded in ${(seeded.ms / 1000).toFixed(1)} s; summary total ${first.value.total}, usage events ${firstUsage.value.event_count}`,
      );
      const settings = { ...DEFAULT_RULE_HEALTH_SETTINGS, min_samples: 5 };
      const firstRuleHealth = await timed(() => ruleHealth(ctx, DEFAULT_ORG_ID, settings));
      const countQueries = await timed(() => countQuerySummary(ctx.stores.findings, 30));
      const since = new Date(NOW.getTime() - 7 * 86_400_000).toISOString();
      const firstHour7 = await ctx.stores.findings.count(DEFAULT_ORG_ID, { first_seen: { $gte: since, $lt: nextUtcHour(since) } });
      const figures = {
        count,
        firstHour7,
        countQueriesMs: countQueries.ms,
        seedS: seeded.ms / 1000,
        firstSummaryMs: first.ms,
        firstUsageMs: firstUsage.ms,
        summary30: await latency(READS, () => findingsSummary(ctx, DEFAULT_ORG_ID, 30)),
        summary7: await latency(READS, () => findingsSummary(ctx, DEFAULT_ORG_ID, 7)),
        usage: await latency(READS, () => usageDocument(ctx, DEFAULT_ORG_ID)),
        feedback: count / 10,
        firstRuleHealthMs: firstRuleHealth.ms,
        wholeLogMs: (await timed(() => ctx.stores.feedback.all(DEFAULT_ORG_ID))).ms,
        ruleHealth: await latency(READS, () => ruleHealth(ctx, DEFAULT_ORG_ID, settings)),
        calibration: await latency(READS, () => calibrationText(ctx, DEFAULT_ORG_ID, settings)),
      };
      const p = (x: { p50: number; p99: number }) => `p50 ${ms(x.p50, 2)}, p99 ${ms(x.p99, 2)}`;
      log(
        `  aggregates ${k(count)}: first read (counter built from the rows) summary ${ms(first.ms, 0)}, usage ${ms(firstUsage.ms, 0)}; ` +
          `then summary 30 d ${p(figures.summary30)}; summary 7 d ${p(figures.summary7)}; usage ${p(figures.usage)}; ` +
          `rule health (${k(figures.feedback)} feedback entries, first read ${ms(figures.firstRuleHealthMs, 0)}) ${p(figures.ruleHealth)}; calibration block ${p(figures.calibration)}`,
      );
      return figures;
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs both sizes and returns the rows for bench/run-all.ts. */
export async function benchAggregates(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const count of SIZES) {
    const f = await measure(count, log);
    const figure = (what: string, x: { p50: number; p99: number }, firstMs: number): BenchRow => ({
      item: '31 aggregates',
      figure: `${what}, ${k(count)} findings and ${k(count)} calls: p50 / p99 of ${READS} reads`,
      value: `${ms(x.p50, 2)} / ${ms(x.p99, 2)}`,
      baseline: `first read (the counter's one-time build): ${ms(firstMs, 0)}${what.startsWith('GET /findings') ? `; count queries as before the counters: ${ms(f.countQueriesMs, 0)}` : ''}${f.feedback > 0 && /rule-health|calibration/.test(what) ? `; reading the whole log as before the counter: ${ms(f.wholeLogMs, 0)}` : ''}`,
      target: `p50 ≤ ${TARGET_MS} ms`,
      pass: x.p50 <= TARGET_MS,
      note: `in process, sqlite file; seeded in ${f.seedS.toFixed(0)} s`,
    });
    rows.push(
      figure('GET /findings/summary (days=30)', f.summary30, f.firstSummaryMs),
      figure(`GET /findings/summary (days=7, ${f.firstHour7} records counted from the rows in its first hour)`, f.summary7, f.firstSummaryMs),
      figure('GET /orgs/{org}/usage', f.usage, f.firstUsageMs),
      figure(`GET /rule-health (${k(f.feedback)} feedback entries)`, f.ruleHealth, f.firstRuleHealthMs),
      figure(`calibration block of every analysis job (${k(f.feedback)} feedback entries)`, f.calibration, f.firstRuleHealthMs),
    );
  }
  return rows;
}

if (process.argv[1]?.endsWith('aggregates.bench.ts')) {
  benchAggregates().then(
    (rows) => console.table(rows.map((r) => ({ figure: r.figure, value: r.value, baseline: r.baseline, target: r.target, pass: r.pass }))),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
