/**
 * Item 2: GET /api/v1/findings (a page of 100) with 100k findings in the org, 50 connections for
 * 10 s (autocannon, run as its own process), beside a bare Express 5 endpoint serving the same
 * JSON payload (bench/bare-child.ts) in the same run. The 100k triage records are bulk-inserted
 * through the storage port into the sqlite file before the server opens it.
 *
 * GET /findings is another issue's route: when server/src/routes/findings.ts is absent or the
 * endpoint does not answer 200, the figure is reported as not measured, with the reason.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FindingStore, type FindingDoc } from '../engine/src/findings/finding-store';
import { DEFAULT_ORG_ID, OrgStore } from '../engine/src/orgs/org-store';
import { openStore } from '../engine/src/store/open-store';
import { ensureSchema } from '../engine/src/stores';
import { REPO_DIR, ms, startServerChild, timed, type BenchRow, type ServerChild } from './lib';

const FINDINGS = 100_000;
const CONNECTIONS = 50;
const DURATION_S = 10;
const PAGE = 100;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
const STATUSES = ['open', 'open', 'needs_review', 'acknowledged', 'suppressed'] as const;

const run = promisify(execFile);

interface LoadResult { reqPerSec: number; p99: number; non2xx: number; errors: number }

export async function benchFindingsList(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const route = join(REPO_DIR, 'server/src/routes/findings.ts');
  if (!existsSync(route)) return notMeasured('server/src/routes/findings.ts does not exist yet (issue 4 in progress)');

  let server: ServerChild | null = null;
  let bare: ServerChild | null = null;
  const tmp = mkdtempSync(join(tmpdir(), 'planwarden-bench-bare-'));
  try {
    const seeded = await timed(() => startServerChild({}, { seed: seedFindings }));
    server = seeded.value;
    const path = `/api/v1/findings?limit=${PAGE}`;
    const probe = await fetch(`${server.url}${path}`);
    const text = await probe.text();
    if (probe.status !== 200) return notMeasured(`GET ${path} answered ${probe.status}: ${text.slice(0, 120)}`);
    const items = pageItems(JSON.parse(text) as unknown);
    log(`  findings: seeded ${FINDINGS} + started in ${seeded.ms.toFixed(0)} ms; page holds ${items ?? '?'} items, ${text.length} bytes`);

    const payloadFile = join(tmp, 'payload.json');
    writeFileSync(payloadFile, text);
    bare = await startServerChild({ BENCH_PAYLOAD_FILE: payloadFile }, { script: 'bench/bare-child.ts' });

    // Bare first, then Planwarden, each after a short warm-up; one at a time on the 2 cores.
    await load(`${bare.url}/bare`, 2);
    const base = await load(`${bare.url}/bare`, DURATION_S);
    await bare.stop();
    bare = null;
    await load(`${server.url}${path}`, 2);
    const pw = await load(`${server.url}${path}`, DURATION_S);
    log(`  findings: planwarden ${pw.reqPerSec.toFixed(0)} req/s p99 ${pw.p99} ms (${pw.non2xx} non-2xx); bare ${base.reqPerSec.toFixed(0)} req/s p99 ${base.p99} ms`);
    const share = pw.reqPerSec / base.reqPerSec;
    // What bounds the figure: the store reads every request makes, timed in this process on the
    // same file (the server idle), beside the per-request CPU budget that 50% of bare allows.
    const reads = await storeReadTimes(server.dataDir);
    const budget = 1000 / (0.5 * base.reqPerSec);
    const breakdown = `store reads per request, in process: FindingStore.list page ${reads.listMs.toFixed(2)} ms (at offset 5000: ${reads.listOffsetMs.toFixed(2)} ms), orgs.get (policy) ${reads.orgMs.toFixed(2)} ms; `
      + `bare serves a request in ${(1000 / base.reqPerSec).toFixed(2)} ms, 50% of bare allows ${budget.toFixed(2)} ms`;
    log(`  findings: ${breakdown}`);
    return [
      {
        item: '2 findings list',
        figure: `GET /findings (page ${PAGE}, ${FINDINGS / 1000}k findings, ${CONNECTIONS} conns, ${DURATION_S} s): req/s`,
        value: `${pw.reqPerSec.toFixed(0)} req/s (${(share * 100).toFixed(0)}% of bare)`,
        baseline: `bare Express, same payload: ${base.reqPerSec.toFixed(0)} req/s`,
        target: '≥ 50% of bare',
        pass: share >= 0.5 && pw.non2xx === 0 && pw.errors === 0,
        note: `${items ?? '?'} items, ${(text.length / 1024).toFixed(0)} KiB per page; ${pw.non2xx} non-2xx, ${pw.errors} errors; ${breakdown}`,
      },
      {
        item: '2 findings list',
        figure: 'GET /findings: p99 latency',
        value: ms(pw.p99, 0),
        baseline: `bare Express p99 ${ms(base.p99, 0)}`,
        target: '≤ 50 ms',
        pass: pw.p99 <= 50,
      },
    ];
  } finally {
    await bare?.stop();
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** 100k triage records in the default org, bulk-inserted (5,000 per transaction). */
async function seedFindings(dataDir: string): Promise<void> {
  const store = await openStore({ backend: 'sqlite', dataDir });
  try {
    await ensureSchema(store);
    const findings = store.collection<FindingDoc>('findings');
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let from = 0; from < FINDINGS; from += 5000) {
      const batch: FindingDoc[] = [];
      for (let i = from; i < Math.min(FINDINGS, from + 5000); i += 1) {
        const seen = new Date(base + i * 1000).toISOString();
        batch.push({
          org_id: DEFAULT_ORG_ID,
          resource_hash: (i >> 3).toString(16).padStart(64, '0'),
          rule_id: `TF-AWS-RULE-${(i % 8).toString().padStart(3, '0')}`,
          resource_address: `aws_s3_bucket.bench_${i >> 3}`,
          severity: SEVERITIES[i % 5],
          title: `Bucket bench_${i >> 3} allows public read`,
          confidence: 'HIGH',
          status: STATUSES[i % 5],
          first_seen: seen,
          last_seen: seen,
          occurrence_count: 1 + (i % 3),
          note: null,
          updated_by: null,
          updated_at: null,
        });
      }
      await findings.insertMany(batch);
    }
  } finally {
    await store.close();
  }
}

/** Mean time of the store reads behind one GET /findings (the page, the org for the policy). */
async function storeReadTimes(dataDir: string): Promise<{ listMs: number; listOffsetMs: number; orgMs: number }> {
  const store = await openStore({ backend: 'sqlite', dataDir });
  try {
    const findings = new FindingStore(store);
    const orgs = new OrgStore(store);
    const mean = async (n: number, fn: () => Promise<unknown>) => {
      for (let i = 0; i < 50; i += 1) await fn();
      const started = performance.now();
      for (let i = 0; i < n; i += 1) await fn();
      return (performance.now() - started) / n;
    };
    return {
      listMs: await mean(500, () => findings.list(DEFAULT_ORG_ID, {}, { limit: PAGE, offset: 0 })),
      // A deep page: the skipped rows must cost index steps only, never document reads.
      listOffsetMs: await mean(100, () => findings.list(DEFAULT_ORG_ID, {}, { limit: PAGE, offset: 5000 })),
      orgMs: await mean(2000, () => orgs.get(DEFAULT_ORG_ID)),
    };
  } finally {
    await store.close();
  }
}

function pageItems(body: unknown): number | null {
  if (Array.isArray(body)) return body.length;
  if (body && typeof body === 'object') {
    for (const value of Object.values(body)) if (Array.isArray(value)) return value.length;
  }
  return null;
}

/** autocannon in its own process (`-j`: JSON summary on stdout). */
async function load(url: string, seconds: number): Promise<LoadResult> {
  const cli = join(REPO_DIR, 'node_modules/autocannon/autocannon.js');
  const { stdout } = await run(process.execPath, [cli, '-c', String(CONNECTIONS), '-d', String(seconds), '-j', url], { maxBuffer: 16 * 1024 * 1024, timeout: (seconds + 30) * 1000 });
  const r = JSON.parse(stdout) as { requests: { average: number }; latency: { p99: number }; non2xx: number; errors: number };
  return { reqPerSec: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

function notMeasured(reason: string): BenchRow[] {
  return [{
    item: '2 findings list',
    figure: `GET /findings (page ${PAGE}, ${FINDINGS / 1000}k findings, ${CONNECTIONS} conns): req/s and p99`,
    value: 'not measured',
    baseline: 'bare Express (not run)',
    target: '≥ 50% of bare; p99 ≤ 50 ms',
    pass: null,
    note: reason,
  }];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchFindingsList().then((rows) => console.table(rows), (err: unknown) => { console.error(err); process.exit(1); });
}
