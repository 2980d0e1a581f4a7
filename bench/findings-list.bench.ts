/**
 * GET /api/v1/findings (a page of 100) with 100k findings in the org, 50 connections
 * (autocannon, run as its own process), beside a bare Express 5 endpoint serving the same JSON
 * payload (bench/bare-child.ts) in the same run — goals: ≥ 75% of bare's req/s, p99 ≤ 1.2× bare's
 * p99 (SHARE_GOAL, P99_GOAL); the same load with 1M findings in the
 * org (how the cost grows: p50 at 1M ≤ 2× p50 at 100k); and a deep page (offset at half the
 * org's findings) at both sizes, one connection, for its latency alone. The three servers are
 * loaded in interleaved rounds (see benchFindingsList).
 *
 * The records are written straight into the sqlite file (seedFindings: the adapter's own table
 * and hot columns made by ensureSchema, one transaction per 50,000 rows, the indexes built once
 * afterwards), in the layout FindingStore.observe writes (newFindingDoc), before the server
 * opens the file.
 *
 * Usage: `npx tsx bench/run-all.ts findings`, or `npx tsx bench/findings-list.bench.ts`.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { FindingStore, newFindingDoc, type FindingDoc } from '../engine/src/findings/finding-store';
import { findingsPageJson } from '../engine/src/findings/finding-view';
import { DEFAULT_ORG_ID, OrgStore } from '../engine/src/orgs/org-store';
import { SQLITE_FILE_NAME, openStore } from '../engine/src/store/open-store';
import { columnName, columnValue, pathOfColumn } from '../engine/src/store/sqlite/columns';
import { ensureSchema } from '../engine/src/stores';
import { compiledServerEnv, compiledServerScript } from './compiled-server';
import { REPO_DIR, median, ms, startServerChild, timed, type BenchRow, type ServerChild } from './lib';

const SIZES = { small: 100_000, large: 1_000_000 } as const;
const CONNECTIONS = 50;
/** Rounds of load, interleaved across the servers under test; each server gets ROUNDS × ROUND_S seconds. */
const ROUNDS = 5;
const ROUND_S = 2;
/** Deep-page requests per server, one at a time, alternating between the servers. */
const DEEP_REQUESTS = 20;
const PAGE = 100;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
const STATUSES = ['open', 'open', 'needs_review', 'acknowledged', 'suppressed'] as const;
const SEED_BATCH = 50_000;
/** Goals against the same run's bare Express: req/s at least this share of bare's, p99 at most this multiple of bare's. */
const SHARE_GOAL = 0.75;
const P99_GOAL = 1.2;

const run = promisify(execFile);

interface LoadResult {
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}
interface SizeResult {
  count: number;
  seedMs: number;
  first: LoadResult;
  deep: LoadResult;
  deepOffset: number;
  reads: StoreReads;
}

/**
 * Seeds both orgs, starts a server on each and the bare baseline on the 100k org's first page,
 * then loads them in interleaved rounds (bare, 100k, 1M, bare, …): on a shared machine a burst
 * of someone else's work then hits every side alike instead of one whole measurement. Figures
 * are the median over the rounds (req/s, p50, p99). Deep pages likewise, one connection.
 */
export async function benchFindingsList(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'planwarden-bench-bare-'));
  const started: ServerChild[] = [];
  const start = async (env: Record<string, string>, options: Parameters<typeof startServerChild>[1]) => {
    const child = await startServerChild(env, options);
    started.push(child);
    return child;
  };
  try {
    const seeded: Record<number, number> = {};
    const servers: ServerChild[] = [];
    const script = await compiledServerScript();
    for (const count of [SIZES.small, SIZES.large]) {
      const up = await timed(() =>
        start(compiledServerEnv(), {
          script,
          seed: async (dir) => {
            seeded[count] = (await timed(() => seedFindings(dir, count))).ms;
          },
        }),
      );
      const probe = await fetch(`${up.value.url}${pagePath(0)}`);
      const body = await probe.text();
      if (probe.status !== 200) throw new Error(`GET ${pagePath(0)} answered ${probe.status}: ${body.slice(0, 120)}`);
      log(
        `  findings ${k(count)}: seeded in ${(seeded[count] / 1000).toFixed(1)} s, server up ${((up.ms - seeded[count]) / 1000).toFixed(1)} s later; page ${pageItems(body)} items`,
      );
      servers.push(up.value);
    }
    const [small, large] = servers;
    const text = await (await fetch(`${small.url}${pagePath(0)}`)).text();
    const payloadFile = join(tmp, 'payload.json');
    writeFileSync(payloadFile, text);
    const bare = await start({ BENCH_PAYLOAD_FILE: payloadFile }, { script: 'bench/bare-child.ts' });

    const urls = [`${bare.url}/bare`, `${small.url}${pagePath(0)}`, `${large.url}${pagePath(0)}`];
    for (const url of urls) await load(url, 1);
    const [base, firstSmall, firstLarge] = await interleaved(urls, ROUNDS, ROUND_S, CONNECTIONS);
    log(`  findings: bare ${lat(base)}; 100k ${lat(firstSmall)}; 1M ${lat(firstLarge)}`);
    const offsets = [SIZES.small / 2, SIZES.large / 2];
    const [deepSmall, deepLarge] = await sequentialLatency([`${small.url}${pagePath(offsets[0])}`, `${large.url}${pagePath(offsets[1])}`], DEEP_REQUESTS);
    log(`  findings: deep pages, one at a time: 100k @${offsets[0]} ${lat(deepSmall)}; 1M @${offsets[1]} ${lat(deepLarge)}`);
    const result = async (server: ServerChild, count: number, first: LoadResult, deep: LoadResult, deepOffset: number): Promise<SizeResult> => ({
      count,
      seedMs: seeded[count],
      first,
      deep,
      deepOffset,
      reads: await storeReadTimes(server.dataDir, deepOffset),
    });
    return rows(
      await result(small, SIZES.small, firstSmall, deepSmall, offsets[0]),
      await result(large, SIZES.large, firstLarge, deepLarge, offsets[1]),
      base,
      text.length,
    );
  } finally {
    for (const child of started) await child.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

const pagePath = (offset: number) => `/api/v1/findings?limit=${PAGE}${offset ? `&offset=${offset}` : ''}`;
const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
const lat = (r: LoadResult) => `${r.reqPerSec.toFixed(0)} req/s, p50 ${ms(r.p50, 0)}, p99 ${ms(r.p99, 0)}`;

/** `rounds` rounds of `seconds` on each URL in turn; per URL the median of its rounds (errors summed). */
async function interleaved(urls: readonly string[], rounds: number, seconds: number, connections: number): Promise<LoadResult[]> {
  const results: LoadResult[][] = urls.map(() => []);
  for (let r = 0; r < rounds; r += 1) {
    for (const [i, url] of urls.entries()) results[i].push(await load(url, seconds, connections));
  }
  return results.map((all) => ({
    reqPerSec: median(all.map((x) => x.reqPerSec)),
    p50: median(all.map((x) => x.p50)),
    p99: median(all.map((x) => x.p99)),
    non2xx: all.reduce((n, x) => n + x.non2xx, 0),
    errors: all.reduce((n, x) => n + x.errors, 0),
  }));
}

/**
 * `n` GETs of each URL, one at a time, alternating between the URLs: per URL the p50 and p99
 * (nearest rank) of the wall times in ms, and the rate one client gets.
 */
async function sequentialLatency(urls: readonly string[], n: number): Promise<LoadResult[]> {
  const times: number[][] = urls.map(() => []);
  const failed = urls.map(() => 0);
  for (const url of urls) await (await fetch(url)).text(); // warm-up
  for (let i = 0; i < n; i += 1) {
    for (const [u, url] of urls.entries()) {
      const t0 = performance.now();
      const res = await fetch(url);
      await res.text();
      times[u].push(performance.now() - t0);
      if (res.status !== 200) failed[u] += 1;
    }
  }
  const rank = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return times.map((all, u) => {
    const sorted = [...all].sort((a, b) => a - b);
    return { reqPerSec: 1000 / median(all), p50: rank(sorted, 0.5), p99: rank(sorted, 0.99), non2xx: failed[u], errors: 0 };
  });
}

function rows(small: SizeResult, large: SizeResult, base: LoadResult, pageBytes: number): BenchRow[] {
  const share = small.first.reqPerSec / base.reqPerSec;
  const budget = 1000 / (SHARE_GOAL * base.reqPerSec);
  const latency = (r: LoadResult) => `p50 ${ms(r.p50, 0)}, p99 ${ms(r.p99, 0)}`;
  const reads = (s: SizeResult) =>
    `${k(s.count)}: list page ${s.reads.listMs.toFixed(2)} ms, raw page + body ${s.reads.rawBodyMs.toFixed(2)} ms, ` +
    `offset ${s.deepOffset} ${s.reads.deepMs.toFixed(2)} ms, orgs.get ${s.reads.orgMs.toFixed(3)} ms`;
  const clean = (r: LoadResult) => r.non2xx === 0 && r.errors === 0;
  const load = `${CONNECTIONS} conns, median of ${ROUNDS} interleaved ${ROUND_S} s rounds`;
  return [
    {
      item: '2 findings list',
      figure: `GET /findings (page ${PAGE}, ${k(small.count)} findings, ${load}): req/s`,
      value: `${small.first.reqPerSec.toFixed(0)} req/s (${(share * 100).toFixed(0)}% of bare)`,
      baseline: `bare Express, same payload: ${base.reqPerSec.toFixed(0)} req/s`,
      target: `≥ ${SHARE_GOAL * 100}% of bare`,
      pass: share >= SHARE_GOAL && clean(small.first),
      note:
        `${PAGE} items, ${(pageBytes / 1024).toFixed(0)} KiB per page; ${small.first.non2xx} non-2xx, ${small.first.errors} errors; ` +
        `store reads in process (servers idle), ${reads(small)}; bare serves a request in ${(1000 / base.reqPerSec).toFixed(2)} ms, ${SHARE_GOAL * 100}% of bare allows ${budget.toFixed(2)} ms`,
    },
    {
      item: '2 findings list',
      figure: `GET /findings: p99 latency (${k(small.count)})`,
      value: ms(small.first.p99, 0),
      baseline: `bare Express ${latency(base)}`,
      target: `≤ ${P99_GOAL}× bare's p99 (${ms(P99_GOAL * base.p99, 0)})`,
      pass: small.first.p99 <= P99_GOAL * base.p99 && clean(small.first),
      note: `${(small.first.p99 / Math.max(base.p99, 1)).toFixed(2)}× bare's p99; p50 ${ms(small.first.p50, 0)}`,
    },
    {
      item: '2 findings list',
      figure: `GET /findings at ${k(large.count)} vs ${k(small.count)} findings (page ${PAGE}, ${load}): p50`,
      value: `${k(large.count)}: ${latency(large.first)}, ${large.first.reqPerSec.toFixed(0)} req/s`,
      baseline: `${k(small.count)}: ${latency(small.first)}, ${small.first.reqPerSec.toFixed(0)} req/s`,
      target: 'p50 ≤ 2× the 100k p50',
      pass: large.first.p50 <= 2 * Math.max(small.first.p50, 1) && clean(large.first),
      note: `ratio ${(large.first.p50 / Math.max(small.first.p50, 1)).toFixed(2)}× (a p50 under 1 ms counts as 1 ms); seeded ${k(large.count)} in ${(large.seedMs / 1000).toFixed(0)} s; ${reads(large)}`,
    },
    {
      item: '2 findings list',
      figure: `GET /findings deep page (offset = half the org, ${DEEP_REQUESTS} requests one at a time): p50 / p99`,
      value: `${k(large.count)}, offset ${large.deepOffset}: ${latency(large.deep)}`,
      baseline: `${k(small.count)}, offset ${small.deepOffset}: ${latency(small.deep)}`,
      target: '(measure)',
      pass: clean(large.deep) && clean(small.deep) ? null : false,
      note: 'the spec pages by offset only; skipped rows cost index steps (no document read), so a deep page grows with its offset',
    },
  ];
}

/**
 * `count` triage records in the default org, in newFindingDoc's layout, written straight into the
 * sqlite file's findings table with their hot columns (columns.ts gives each column's name and
 * value, exactly as the adapter writes them); the indexes are built after the load.
 */
export async function seedFindings(dataDir: string, count: number): Promise<void> {
  await prepareSchema(dataDir);
  const db = new Database(join(dataDir, SQLITE_FILE_NAME));
  try {
    // Bulk load: the findings indexes (and unique-key triggers) are dropped here and built again,
    // each in one sorted pass, by the second prepareSchema (ensureIndexes re-creates what is missing).
    const derived = db
      .prepare(`SELECT type, name FROM sqlite_master WHERE tbl_name = 'findings' AND type IN ('index', 'trigger') AND sql IS NOT NULL`)
      .all() as { type: string; name: string }[];
    for (const d of derived) db.exec(`DROP ${d.type === 'index' ? 'INDEX' : 'TRIGGER'} "${d.name}"`);
    // A bench file: no fsync, and a page cache that holds the indexes while they grow.
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1048576');
    const paths = (db.prepare(`SELECT name FROM pragma_table_info('findings')`).pluck().all() as string[])
      .map(pathOfColumn)
      .filter((p): p is string => p !== null);
    const cols = paths.map(columnName);
    const insert = db.prepare(`INSERT INTO findings (_id, doc${cols.map((c) => `, ${c}`).join('')}) VALUES (?, ?${', ?'.repeat(cols.length)})`);
    // Seen within the last `count` seconds (a million: under 12 days), so no retention window is
    // passed and the server's retention sweep has nothing to purge while the load runs.
    const base = Date.now() - count * 1000 - 60_000;
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i += 1) {
        const seen = new Date(base + i * 1000).toISOString();
        const doc: FindingDoc & { _id: string } = {
          _id: randomUUID(),
          ...newFindingDoc(
            DEFAULT_ORG_ID,
            {
              resource_hash: (i >> 3).toString(16).padStart(64, '0'),
              rule_id: `TF-AWS-RULE-${(i % 8).toString().padStart(3, '0')}`,
              resource_address: `aws_s3_bucket.bench_${i >> 3}`,
              severity: SEVERITIES[i % 5],
              title: `Bucket bench_${i >> 3} allows public read`,
              confidence: 'HIGH',
              initialStatus: STATUSES[i % 5],
            },
            seen,
          ),
          occurrence_count: 1 + (i % 3),
        };
        insert.run(doc._id, JSON.stringify(doc), ...paths.map((p) => columnValue(doc as unknown as Record<string, unknown>, p)));
      }
    });
    for (let from = 0; from < count; from += SEED_BATCH) batch(from, Math.min(count, from + SEED_BATCH));
  } finally {
    db.close();
  }
  await prepareSchema(dataDir);
}

/** Every collection's table, hot columns and indexes (ensureSchema), on the sqlite file in `dataDir`. */
async function prepareSchema(dataDir: string): Promise<void> {
  const store = await openStore({ backend: 'sqlite', dataDir });
  try {
    await ensureSchema(store);
  } finally {
    await store.close();
  }
}

interface StoreReads {
  listMs: number;
  rawBodyMs: number;
  deepMs: number;
  orgMs: number;
}

/**
 * Mean time of the store work behind one GET /findings, in this process on the same file: the
 * page parsed (FindingStore.list, the parse-and-present path), the page's stored JSON and the body
 * built from it (what the route does; repeated reads of one page come from the sqlite read cache), that at the deep offset, and the org read of the policy.
 */
async function storeReadTimes(dataDir: string, deepOffset: number): Promise<StoreReads> {
  const store = await openStore({ backend: 'sqlite', dataDir });
  try {
    const findings = new FindingStore(store);
    const orgs = new OrgStore(store);
    const mean = async (n: number, fn: () => Promise<unknown>) => {
      for (let i = 0; i < Math.min(50, n); i += 1) await fn();
      const started = performance.now();
      for (let i = 0; i < n; i += 1) await fn();
      return (performance.now() - started) / n;
    };
    const page = { limit: PAGE, offset: 0 };
    return {
      listMs: await mean(500, () => findings.list(DEFAULT_ORG_ID, {}, page)),
      rawBodyMs: await mean(500, async () => findingsPageJson(await findings.listRawJson(DEFAULT_ORG_ID, {}, page))),
      deepMs: await mean(20, async () => findingsPageJson(await findings.listRawJson(DEFAULT_ORG_ID, {}, { limit: PAGE, offset: deepOffset }))),
      orgMs: await mean(2000, () => orgs.get(DEFAULT_ORG_ID)),
    };
  } finally {
    await store.close();
  }
}

function pageItems(body: string): number | string {
  const parsed = JSON.parse(body) as { findings?: unknown[] };
  return parsed.findings?.length ?? '?';
}

/** autocannon in its own process (`-j`: JSON summary on stdout). */
async function load(url: string, seconds: number, connections = CONNECTIONS): Promise<LoadResult> {
  const cli = join(REPO_DIR, 'node_modules/autocannon/autocannon.js');
  const { stdout } = await run(process.execPath, [cli, '-c', String(connections), '-d', String(seconds), '-j', url], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: (seconds + 60) * 1000,
  });
  const r = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchFindingsList().then(
    (rows) => console.table(rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
