import type { Logger } from '../core/logger';
import type { Collection, Filter, IndexSpec, Store } from '../store/port';

export type SpanType = 'request' | 'ingest' | 'analysis';

/** identity-api.md "Span (metrics)", plus the org it belongs to. */
export interface SpanDoc {
  _id?: string;
  span_id: string;
  org_id: string;
  trace_id: string;
  type: SpanType;
  timestamp: string;
  duration_ms: number;
  key_id: string | null;
  user_id: string | null;
  data: Record<string, unknown>;
}

export const SPAN_INDEXES: Record<string, IndexSpec[]> = {
  spans: [
    { name: 'org_type_time', keys: { org_id: 1, type: 1, timestamp: -1 } },
    { name: 'org_time', keys: { org_id: 1, timestamp: -1 } },
  ],
};

export interface SpanBufferOptions {
  /** Longest a recorded span waits in memory before its batch is written (ms). */
  readonly flushMs?: number;
  /** A batch is written as soon as this many spans wait. */
  readonly maxBatch?: number;
}

const DEFAULT_FLUSH_MS = 250;
const DEFAULT_MAX_BATCH = 500;

/**
 * Typed store for spans; every read takes the org first.
 *
 * Writes are buffered (a span is telemetry, written off the request path): `insert` queues the
 * span and a batch goes to the store with one insertMany after `flushMs`, or at once when
 * `maxBatch` spans wait. Every read of this process flushes first, so a span recorded before a
 * read is seen by it; the server flushes on close. A failed batch is retried span by span and
 * whatever still fails is logged and dropped: telemetry never fails a request. (A crash loses
 * at most the last `flushMs` of spans; another replica sees them once flushed.)
 */
export class SpanStore {
  private readonly spans: Collection<SpanDoc>;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private buffer: SpanDoc[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The last batch write started (settles, never rejects): batches are written in order. */
  private writing: Promise<void> = Promise.resolve();
  private log: Pick<Logger, 'warn'> | null = null;
  /** Orgs purged in this process: their spans are no longer recorded (purgeOrg). */
  private readonly purged = new Set<string>();

  constructor(store: Store, options: SpanBufferOptions = {}) {
    this.spans = store.collection<SpanDoc>('spans');
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  }

  /** Queues one span for the next batch (a purged org's is dropped); `log` receives write failures. Never throws. */
  insert(doc: SpanDoc, log?: Pick<Logger, 'warn'>): void {
    if (log) this.log = log;
    if (this.purged.has(doc.org_id)) return;
    this.buffer.push(doc);
    if (this.buffer.length >= this.maxBatch) {
      void this.flush();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref?.();
    }
  }

  /** Spans recorded but not yet written. */
  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Writes every queued span (after any batch already being written) and resolves once they
   * are stored, or logged and dropped. Never rejects.
   */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buffer;
    if (batch.length === 0) return this.writing;
    this.buffer = [];
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /**
   * Deletes every span of `orgId` (POST /admin/organizations/purge-pending) so none survives
   * the purge: this process stops recording the org's spans, drops those still buffered, waits
   * for batches already being written, then deletes the stored ones. Returns how many stored
   * spans were deleted. (Another replica's buffer holds at most its last `flushMs` of spans.)
   */
  async purgeOrg(orgId: string): Promise<number> {
    this.purged.add(orgId);
    this.buffer = this.buffer.filter((doc) => doc.org_id !== orgId);
    await this.writing;
    return this.spans.deleteMany({ org_id: orgId });
  }

  private async write(batch: SpanDoc[]): Promise<void> {
    try {
      await this.spans.insertMany(batch);
      return;
    } catch {
      // One bad span must not cost the batch: retry them one by one.
    }
    let lost = 0;
    let firstError: unknown = null;
    for (const doc of batch) {
      try {
        await this.spans.insertOne(doc);
      } catch (error) {
        lost += 1;
        firstError ??= error;
      }
    }
    if (lost > 0) this.log?.warn({ err: firstError, lost }, lost === 1 ? 'span not recorded' : `${lost} spans not recorded`);
  }

  /** Spans of the org since `since` (inclusive), optionally of one type. */
  async since(orgId: string, since: string, type?: SpanType): Promise<SpanDoc[]> {
    await this.flush();
    const filter: Filter = { org_id: orgId, timestamp: { $gte: since } };
    if (type) filter.type = type;
    return this.spans.find(filter);
  }

  /** The span log newest first. */
  async list(orgId: string, query: { type?: SpanType; userId?: string; keyId?: string; limit: number; offset: number }): Promise<SpanDoc[]> {
    await this.flush();
    const filter: Filter = { org_id: orgId };
    if (query.type) filter.type = query.type;
    if (query.userId) filter.user_id = query.userId;
    if (query.keyId) filter.key_id = query.keyId;
    return this.spans.find(filter, { sort: { timestamp: -1, span_id: -1 }, skip: query.offset, limit: query.limit });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly spans: SpanStore;
  }
}
