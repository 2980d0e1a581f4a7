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
}

export const LLM_CALL_INDEXES: Record<string, IndexSpec[]> = {
  llm_calls: [
    { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
    { name: 'org_job', keys: { org_id: 1, job_id: 1 } },
  ],
};

/** Typed store for usage events. Every method takes the org first. */
export class LlmCallStore {
  private readonly calls: Collection<LlmCallDoc>;
  constructor(store: Store) {
    this.calls = store.collection<LlmCallDoc>('llm_calls');
  }

  async record(orgId: string, calls: readonly Omit<LlmCallDoc, '_id' | 'org_id'>[]): Promise<void> {
    if (calls.length === 0) return;
    await this.calls.insertMany(calls.map((c) => ({ ...c, org_id: orgId })));
  }

  forJob(orgId: string, jobId: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, job_id: jobId }, { sort: { created_at: 1 } });
  }

  /** Calls made in [from, to) (ISO timestamps). */
  between(orgId: string, from: string, to: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, created_at: { $gte: from, $lt: to } });
  }
}
