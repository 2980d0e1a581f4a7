/**
 * Item 1's lower bound (issue 18): what an ingest of the same plan costs when every step the spec
 * requires is done with the cheapest primitive there is, and nothing else — no analyzer code, no
 * storage adapter, no validation, no secret masking, no rendering. Each step is timed on its own
 * (median of REPS) and the sum is set against JSON.parse of the plan, the goal's unit:
 *
 * - parse: JSON.parse of the plan text (1× by definition; median of 3 samples per rep);
 * - reply: JSON.stringify of the units the spec echoes (analysis-api.md ingest reply: every
 *   unit, body and metadata included), one string per unit, reused as the stored text below;
 * - hash: each unit's content hash, by the product's own hashUnit (engine/src/ingest/hash.ts:
 *   SHA-256 of the composition, the body canonicalised only when it needs it);
 * - store: raw better-sqlite3 (WAL, synchronous NORMAL, as the adapter opens it), one
 *   transaction, one row per unit holding its JSON with a unique (org, hash) index, and one
 *   namespace-membership row per unit with a unique (org, namespace, hash) index: the least a
 *   stored resource and its membership need to be found by hash;
 * - HTTP: the plan POSTed to a bare Express app that reads the body and answers a reply of the
 *   same text (bare-child.ts /bare-ingest), read as text by the client;
 * - client parse: JSON.parse of the reply (ingest.bench.ts counts the units it returns).
 *
 * The units are the terraform analyzer's, made once before timing (their rendering is not
 * counted). Usage: `npx tsx bench/ingest-floor.ts`, or `npm run bench -- ingest`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createAnalyzerRegistry } from '../engine/src/analyzers/registry';
import type { AnalysisUnit } from '../engine/src/core/unit';
import { hashUnit } from '../engine/src/core/hash';
import { median, planOfSize, startServerChild, timed, type BenchRow } from './lib';

const MB = 1024 * 1024;
const REPS = 3;

export interface IngestFloor {
  readonly mb: number;
  readonly units: number;
  readonly replyMb: number;
  /** Median ms of each step. */
  readonly parse: number;
  readonly reply: number;
  readonly hash: number;
  readonly store: number;
  readonly http: number;
  readonly clientParse: number;
}

/** Times each primitive step on a plan of `bytes` (see the module comment). */
export async function ingestFloor(bytes = 10 * MB - 64 * 1024): Promise<IngestFloor> {
  const { text } = planOfSize(bytes, 'floor');
  const analyzer = createAnalyzerRegistry().get('terraform')!;
  const units = analyzer.ingest!(text).map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: 'terraform' } }));
  const replyText = `[${units.map((u) => JSON.stringify(u)).join(',')}]`;
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-bench-floor-'));
  const payloadFile = join(dir, 'reply.json');
  writeFileSync(payloadFile, replyText);
  const bare = await startServerChild({ BENCH_PAYLOAD_FILE: payloadFile }, { script: 'bench/bare-child.ts' });
  const steps = {
    parse: [] as number[],
    reply: [] as number[],
    hash: [] as number[],
    store: [] as number[],
    http: [] as number[],
    clientParse: [] as number[],
  };
  try {
    await postPlan(bare.url, text); // warm-up
    for (let rep = 0; rep < REPS; rep += 1) {
      // Three samples per rep, as ingest.bench.ts takes its baseline (one sample can catch a GC).
      for (let i = 0; i < 3; i += 1) steps.parse.push((await timed(() => JSON.parse(text) as unknown)).ms);
      const json = await timed(() => units.map((u) => JSON.stringify(u)));
      steps.reply.push(json.ms);
      steps.hash.push((await timed(() => units.map((u) => hashUnit({ ...u, analyzer: 'terraform' })))).ms);
      const raw = rawStore(join(dir, `r${rep}.db`), units, json.value);
      steps.store.push((await timed(raw.insert)).ms);
      raw.db.close();
      const reply = await timed(() => postPlan(bare.url, text));
      steps.http.push(reply.ms);
      steps.clientParse.push((await timed(() => JSON.parse(reply.value) as unknown)).ms);
    }
  } finally {
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    mb: Buffer.byteLength(text) / MB,
    units: units.length,
    replyMb: Buffer.byteLength(replyText) / MB,
    parse: median(steps.parse),
    reply: median(steps.reply),
    hash: median(steps.hash),
    store: median(steps.store),
    http: median(steps.http),
    clientParse: median(steps.clientParse),
  };
}

/**
 * Opens `file` with the tables and indexes (not timed) and returns the timed part: one
 * transaction inserting every unit's row and membership row. The caller closes the database
 * after timing (closing checkpoints the WAL, which the server's request path does not do).
 */
function rawStore(file: string, units: readonly AnalysisUnit[], json: readonly string[]): { db: Database.Database; insert: () => void } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE resources (doc TEXT NOT NULL, org_id TEXT NOT NULL, hash TEXT NOT NULL)');
  db.exec('CREATE UNIQUE INDEX resources_org_hash ON resources (org_id, hash)');
  db.exec('CREATE TABLE members (org_id TEXT NOT NULL, namespace TEXT NOT NULL, hash TEXT NOT NULL, position INTEGER NOT NULL)');
  db.exec('CREATE UNIQUE INDEX members_org_ns_hash ON members (org_id, namespace, hash)');
  const resource = db.prepare('INSERT INTO resources (doc, org_id, hash) VALUES (?, ?, ?)');
  const member = db.prepare('INSERT INTO members (org_id, namespace, hash, position) VALUES (?, ?, ?, ?)');
  const insert = db.transaction(() => {
    units.forEach((u, i) => {
      resource.run(json[i], 'org-floor', u.hash);
      member.run('org-floor', 'ns-floor', u.hash, i);
    });
  });
  return { db, insert: () => insert.immediate() };
}

async function postPlan(url: string, text: string): Promise<string> {
  const res = await fetch(`${url}/bare-ingest`, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
  const body = await res.text();
  if (res.status !== 201) throw new Error(`bare ingest answered ${res.status}`);
  return body;
}

/**
 * The floor as bench rows: server-side steps, then over HTTP as ingest.bench.ts measures it, and,
 * given the server's ingest of the 10 MB plan in ms/MB from the same run, its ratio to the floor
 * over HTTP (goal ≤ 1.5×).
 */
export function floorRows(f: IngestFloor, ingestPerMbAt10?: number): BenchRow[] {
  const x = (v: number) => `${(v / f.parse).toFixed(1)}×`;
  const server = f.parse + f.reply + f.hash + f.store;
  const overHttp = server + f.http + f.clientParse;
  const parts =
    `parse ${f.parse.toFixed(0)} ms (1×), reply JSON ${f.reply.toFixed(0)} ms (${x(f.reply)}), hash ${f.hash.toFixed(0)} ms (${x(f.hash)}), ` +
    `raw SQLite insert ${f.store.toFixed(0)} ms (${x(f.store)})`;
  const label = `${f.mb.toFixed(1)} MB plan, ${f.units} units, ${f.replyMb.toFixed(1)} MB reply`;
  return [
    {
      item: '1 ingest',
      figure: `floor: required steps with raw primitives, in process (${label})`,
      value: `${server.toFixed(0)} ms = ${x(server)} JSON.parse`,
      baseline: `JSON.parse ${f.parse.toFixed(0)} ms`,
      target: '(measure; the goal is ≤ 5×)',
      pass: null,
      note: `${parts}; not counted: rendering, secret masking, plan context, validation, the storage adapter`,
    },
    {
      item: '1 ingest',
      figure: 'floor over HTTP, as ingest.bench.ts measures (bare Express reads the plan, answers the reply; client parses it)',
      value: `${overHttp.toFixed(0)} ms = ${x(overHttp)} JSON.parse`,
      baseline: `JSON.parse ${f.parse.toFixed(0)} ms`,
      target: '(measure; the goal is ≤ 5×)',
      pass: null,
      note: `in process ${server.toFixed(0)} ms + bare HTTP round trip ${f.http.toFixed(0)} ms (${x(f.http)}) + client JSON.parse of the reply ${f.clientParse.toFixed(0)} ms (${x(f.clientParse)})`,
    },
    ...(ingestPerMbAt10 === undefined ? [] : [againstFloor(ingestPerMbAt10, overHttp / f.mb)]),
  ];
}

/** The server's 10 MB ingest (ms/MB) against the floor over HTTP (ms/MB), both of this run. */
function againstFloor(ingestPerMb: number, floorPerMb: number): BenchRow {
  const ratio = ingestPerMb / floorPerMb;
  return {
    item: '1 ingest',
    figure: 'ingest 10 MB over HTTP against the floor over HTTP',
    value: `${ratio.toFixed(2)}×`,
    baseline: `floor ${floorPerMb.toFixed(1)} ms/MB; ingest ${ingestPerMb.toFixed(1)} ms/MB`,
    target: '≤ 1.5×',
    pass: ratio <= 1.5,
    note: '',
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ingestFloor().then(
    (f) => {
      console.log(f);
      console.table(floorRows(f));
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
