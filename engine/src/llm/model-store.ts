import type { Collection, IndexSpec, Store } from '../store/port';

/** analysis-api.md "Allowed model": the platform-wide catalogue. */
export interface AllowedModelDoc {
  _id?: string;
  llm_backend: string;
  model: string;
  input_price_per_1m_usd: number;
  output_price_per_1m_usd: number;
  enabled: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string | null;
}

export const MODEL_INDEXES: Record<string, IndexSpec[]> = {
  allowed_models: [{ name: 'backend_model', keys: { llm_backend: 1, model: 1 }, unique: true }],
};

/** Typed store for the catalogue (platform-wide, not per org). */
export class ModelStore {
  private readonly models: Collection<AllowedModelDoc>;
  constructor(store: Store) {
    this.models = store.collection<AllowedModelDoc>('allowed_models');
  }

  /** Inserts the curated rows that are missing (run at every startup); never overwrites edits. */
  async seed(rows: readonly Pick<AllowedModelDoc, 'llm_backend' | 'model' | 'input_price_per_1m_usd' | 'output_price_per_1m_usd'>[], now: string): Promise<void> {
    for (const row of rows) {
      await this.models.updateOne(
        { llm_backend: row.llm_backend, model: row.model },
        { $setOnInsert: { ...row, enabled: true, created_by: null, created_at: now, updated_at: null } },
        { upsert: true },
      );
    }
  }

  get(backend: string, model: string): Promise<AllowedModelDoc | null> {
    return this.models.findOne({ llm_backend: backend, model });
  }

  list(enabled?: boolean): Promise<AllowedModelDoc[]> {
    return this.models.find(enabled === undefined ? {} : { enabled }, { sort: { llm_backend: 1, model: 1 } });
  }
}
