/**
 * The body of the ingest worker thread (worker-pool.ts): runs a built-in analyzer's `ingest`, or
 * auto-routing over the built-in analyzers, on a raw body and replies with the units. A job that
 * names a SQLite file (`record`) also records the units there, through this thread's own
 * connection, and replies with their JSON text instead of the objects: the event loop then never
 * writes, deserialises or serialises a large plan's units (docs/decisions.md "Ingest off the
 * event loop, second round"). Runs in a worker thread only; the analyzers and the store are the
 * same modules the server uses inline.
 */
import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import type { AnalysisUnit } from '../core/unit';
import { ResourceStore } from './resource-store';
import { AppError } from '../core/errors';
import type { ThreadAccess } from '../store/port';
import { SqliteStore } from '../store/sqlite/store';
import { autoRoute, type AutoRouteResult } from './auto-route';
import { decodeText } from '../core/decode';
import { assertNotEmpty, assertUnitsFound } from './ingest-checks';

/** Where and how a job records its units (ResourceStore.addUnits) before replying. */
export interface IngestRecord {
  readonly store: ThreadAccess;
  readonly orgId: string;
  readonly namespace: string;
  /** ISO timestamp of the ingest (the resources' and members' created_at). */
  readonly now: string;
  /** The run this ingest records (ResourceStore.addUnits `runId`). */
  readonly runId: string;
}

/**
 * A job for the ingest worker: `analyzer` splits with one built-in analyzer (units tagged with
 * `metadata.analyzer`, as analysis-api.md's ingest reply shows them); `auto` auto-routes
 * over the named built-ins (in routing order), `enabled` being the org's switches.
 * With `record`, the units are recorded and replied as JSON text (IngestReply `json`).
 */
export type IngestJob = (
  | { readonly op: 'analyzer'; readonly analyzer: string }
  | { readonly op: 'auto'; readonly analyzers: readonly string[]; readonly enabled: readonly string[] }
) & {
  /** The body: text, or the bytes as received (decoded here, decode.ts, so the event loop never decodes a large body). */
  readonly raw: string | Uint8Array;
  readonly record?: IngestRecord;
};

/** An AppError crossing the thread boundary: its class name, status, message and extra fields. */
export interface WorkerFailure {
  readonly name: string;
  readonly status: number | null;
  readonly message: string;
  readonly extra: Record<string, unknown>;
}

/**
 * Messages of one job, in order: `units` chunks of at most UNIT_CHUNK units (each its own
 * message, so the receiving event loop deserialises a bounded amount at a time) — or, for a
 * recorded job, `json` chunks: consecutive pieces of the units' JSON array text without its
 * brackets (`{..},{..}`, about JSON_CHUNK_CHARS each) — then `done` (the unit count and hashes
 * of a recorded job, the routing facts of an auto job; failures carry the error).
 */
export type IngestReply =
  | { readonly type: 'units'; readonly id: number; readonly units: AnalysisUnit[] }
  | { readonly type: 'json'; readonly id: number; readonly text: string }
  | { readonly type: 'done'; readonly id: number; readonly ok: true; readonly routed?: Omit<AutoRouteResult, 'units'>; readonly hashes?: string[] }
  | { readonly type: 'done'; readonly id: number; readonly ok: false; readonly failure: WorkerFailure };

/** Units per `units` message: ~250 units (~400 KB) deserialise in a few ms. */
export const UNIT_CHUNK = 250;
/** Characters per `json` message (a string is copied, not parsed, on the receiving side). */
export const JSON_CHUNK_CHARS = 1024 * 1024;
/**
 * Batch sizing of this thread's store writes: one batch (one transaction per collection write)
 * for any input within the ingest limit (a 10 MB plan has ~7,500-12,600 units). Each commit
 * rewrites the index pages it touched, so fewer, larger transactions write far less (measured on
 * a 10 MB plan: ~0.8 s in one batch, ~1.1-1.2 s in 40-100 ms batches). Writes from the event
 * loop wait for it without blocking (SqliteConnection.write).
 */
const RECORD_BATCHES = { first: 20_000, max: 20_000, min: 1_000, budgetMs: 1_000 } as const;

const byName = new Map(BUILT_IN_ANALYZERS.map((a) => [a.name, a]));
/** This thread's connections, one per database file, kept while the thread lives. */
const stores = new Map<string, { store: SqliteStore; resources: ResourceStore }>();

function splitJob(job: IngestJob): { units: AnalysisUnit[]; routed?: Omit<AutoRouteResult, 'units'> } {
  const raw = typeof job.raw === 'string' ? job.raw : decodeText(job.raw);
  assertNotEmpty(raw);
  if (job.op === 'analyzer') {
    const analyzer = byName.get(job.analyzer);
    if (!analyzer?.ingest) throw new Error(`analyzer '${job.analyzer}' cannot ingest in a worker`);
    // Tagged here (as ingest-service.ts does inline) so the event loop gets the final units.
    const units = analyzer.ingest(raw);
    for (let i = 0; i < units.length; i += 1) units[i] = { ...units[i], metadata: { ...units[i].metadata, analyzer: analyzer.name } };
    return { units };
  }
  const enabled = new Set(job.enabled);
  const analyzers = job.analyzers.map((name) => byName.get(name)).filter((a) => a !== undefined);
  const { units, analyzers_used, detections } = autoRoute(raw, analyzers, (name) => enabled.has(name));
  return { units, routed: { analyzers_used, detections } };
}

/** This thread's own connection to `access.file` (opened on first use); its WAL checkpoints run here too. */
function connectionTo(access: ThreadAccess): { store: SqliteStore; resources: ResourceStore } {
  let entry = stores.get(access.file);
  if (!entry) {
    const store = new SqliteStore(access.file, 'sqlite', { walCheckpoints: 'inline' });
    entry = { store, resources: new ResourceStore(store) };
    stores.set(access.file, entry);
  }
  return entry;
}

/** Posts `units` as `json` messages of about JSON_CHUNK_CHARS: JSON.stringify(units) without its brackets. */
function postJson(id: number, units: readonly AnalysisUnit[], post: (reply: IngestReply) => void): void {
  let parts: string[] = [];
  let chars = 0;
  for (let i = 0; i < units.length; i += 1) {
    const json = JSON.stringify(units[i]);
    parts.push(i === 0 ? json : `,${json}`);
    chars += json.length + 1;
    if (chars >= JSON_CHUNK_CHARS) {
      post({ type: 'json', id, text: parts.join('') });
      parts = [];
      chars = 0;
    }
  }
  if (parts.length > 0) post({ type: 'json', id, text: parts.join('') });
}

function failure(error: unknown): WorkerFailure {
  const app = error instanceof AppError ? error : null;
  return {
    name: app ? app.name : 'Error',
    status: app ? app.status : null,
    message: error instanceof Error ? error.message : String(error),
    extra: app ? { ...app.extra } : {},
  };
}

/**
 * Runs one job inside the worker, sending its replies through `post`; never rejects. A recorded
 * job's units are in the store before its first `json` message.
 */
export async function runIngestJob(id: number, job: IngestJob, post: (reply: IngestReply) => void): Promise<void> {
  try {
    const result = splitJob(job);
    const { record } = job;
    if (record) {
      if (job.op === 'analyzer') assertUnitsFound(job.analyzer, result.units);
      const { store, resources } = connectionTo(record.store);
      await resources.addUnits(record.orgId, record.namespace, result.units, record.now, RECORD_BATCHES, record.runId);
      postJson(id, result.units, post);
      post({ type: 'done', id, ok: true, routed: result.routed, hashes: result.units.map((u) => u.hash) });
      // After the reply: the WAL this job grew is copied into the database here, not by the
      // commit of a later job nor on the event loop (whose checkpointer runs after its own writes).
      store.checkpointIfLarge();
      return;
    }
    for (let start = 0; start < result.units.length; start += UNIT_CHUNK) {
      post({ type: 'units', id, units: result.units.slice(start, start + UNIT_CHUNK) });
    }
    post({ type: 'done', id, ok: true, routed: result.routed });
  } catch (error) {
    post({ type: 'done', id, ok: false, failure: failure(error) });
  }
}
