import type { Collection, IndexSpec, Store } from '../store/port';

/** One metered LLM call (a usage event): tokens and cost priced from the catalogue at call time. */
export interface LlmCallDoc {
  _id?: string;
  org_id: string;
  job_id: string | null;
  resource_hash: string;
  llm_backend: string;
  model: string;
  attempt: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  duration_ms: number;
  error: string | null;
  created_at: string;
  /**
   * `<job_id>:<resource_hash>:<attempt>` for calls of a job's unit: metering the same call twice
   * (a resumed or doubly-run job) stores it once. Absent on calls recorded without one.
   */
  idempotency_key?: string;
}

export const LLM_CALL_INDEXES: Record<string, IndexSpec[]> = {
  llm_calls: [
    { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
    { name: 'org_job', keys: { org_id: 1, job_id: 1 } },
    { name: 'org_idempotency', keys: { org_id: 1, idempotency_key: 1 } },
  ],
};

/** Typed store for usage events. Every method takes the org first. */
export class LlmCallStore {
  private readonly calls: Collection<LlmCallDoc>;
  constructor(store: Store) {
    this.calls = store.collection<LlmCallDoc>('llm_calls');
  }

  /**
   * Records usage events. A call carrying an `idempotency_key` is stored only if no call of the
   * org holds that key yet (an atomic upsert with $setOnInsert); the others are inserted as is.
   * Returns how many calls were stored.
   */
  async record(orgId: string, calls: readonly Omit<LlmCallDoc, '_id' | 'org_id'>[]): Promise<number> {
    const plain = calls.filter((c) => c.idempotency_key === undefined).map((c) => ({ ...c, org_id: orgId }));
    if (plain.length > 0) await this.calls.insertMany(plain);
    let stored = plain.length;
    for (const call of calls) {
      const { idempotency_key: key, ...rest } = call;
      if (key === undefined) continue;
      // The filter's equality fields (org_id, idempotency_key) are part of the inserted document.
      const { upserted } = await this.calls.updateOne({ org_id: orgId, idempotency_key: key }, { $setOnInsert: rest }, { upsert: true });
      if (upserted) stored += 1;
    }
    return stored;
  }

  /** The calls metered for one unit of one job, in attempt order. */
  forUnit(orgId: string, jobId: string, resourceHash: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, job_id: jobId, resource_hash: resourceHash }, { sort: { attempt: 1 } });
  }

  forJob(orgId: string, jobId: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, job_id: jobId }, { sort: { created_at: 1 } });
  }

  /** Calls made in [from, to) (ISO timestamps). */
  between(orgId: string, from: string, to: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, created_at: { $gte: from, $lt: to } });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly llmCalls: LlmCallStore;
  }
}
