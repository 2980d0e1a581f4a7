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

/** Typed store for spans; every read takes the org first. */
export class SpanStore {
  private readonly spans: Collection<SpanDoc>;
  constructor(store: Store) {
    this.spans = store.collection<SpanDoc>('spans');
  }

  async insert(doc: SpanDoc): Promise<void> {
    await this.spans.insertOne(doc);
  }

  /** Spans of the org since `since` (inclusive), optionally of one type. */
  since(orgId: string, since: string, type?: SpanType): Promise<SpanDoc[]> {
    const filter: Filter = { org_id: orgId, timestamp: { $gte: since } };
    if (type) filter.type = type;
    return this.spans.find(filter);
  }

  /** The span log newest first. */
  list(orgId: string, query: { type?: SpanType; userId?: string; keyId?: string; limit: number; offset: number }): Promise<SpanDoc[]> {
    const filter: Filter = { org_id: orgId };
    if (query.type) filter.type = query.type;
    if (query.userId) filter.user_id = query.userId;
    if (query.keyId) filter.key_id = query.keyId;
    return this.spans.find(filter, { sort: { timestamp: -1, span_id: -1 }, skip: query.offset, limit: query.limit });
  }
}
