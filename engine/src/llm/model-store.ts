import { ConflictError } from '../core/errors';
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
  /** Curated pairs an operator removed (DELETE /admin/models): the startup seed leaves them out. */
  allowed_model_removals: [{ name: 'backend_model', keys: { llm_backend: 1, model: 1 }, unique: true }],
};

/** The price and switch fields PATCH /admin/models/{llm_backend}/{model} may change. */
export type ModelChanges = Partial<Pick<AllowedModelDoc, 'input_price_per_1m_usd' | 'output_price_per_1m_usd' | 'enabled'>>;

/** Typed store for the catalogue (platform-wide, not per org). */
export class ModelStore {
  private readonly models: Collection<AllowedModelDoc>;
  private readonly removals: Collection<{ _id?: string; llm_backend: string; model: string; removed_at: string }>;
  constructor(store: Store) {
    this.models = store.collection<AllowedModelDoc>('allowed_models');
    this.removals = store.collection('allowed_model_removals');
  }

  /**
   * Inserts the curated rows that are missing (run at every startup); never overwrites edits.
   * Reads the catalogue and its removals once and writes only the missing rows, so a start on an
   * existing catalogue writes nothing.
   */
  async seed(
    rows: readonly Pick<AllowedModelDoc, 'llm_backend' | 'model' | 'input_price_per_1m_usd' | 'output_price_per_1m_usd'>[],
    now: string,
  ): Promise<void> {
    const key = (r: { llm_backend: string; model: string }) => `${r.llm_backend}\0${r.model}`;
    const skip = new Set([...(await this.models.find({})), ...(await this.removals.find({}))].map(key));
    for (const row of rows) {
      if (skip.has(key(row))) continue;
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

  /** POST /admin/models: adds a row. ConflictError (409) when the pair exists. */
  async create(row: Omit<AllowedModelDoc, '_id' | 'updated_at'>): Promise<AllowedModelDoc> {
    if (await this.get(row.llm_backend, row.model)) throw new ConflictError(`Model '${row.model}' of backend '${row.llm_backend}' is already on the catalogue`);
    const doc = await this.models.insertOne({ ...row, updated_at: null });
    await this.removals.deleteOne({ llm_backend: row.llm_backend, model: row.model });
    return doc;
  }

  /** PATCH /admin/models/{llm_backend}/{model}: partial change; null when the pair is absent. */
  update(backend: string, model: string, changes: ModelChanges, now: string): Promise<AllowedModelDoc | null> {
    return this.models.findOneAndUpdate({ llm_backend: backend, model }, { $set: { ...changes, updated_at: now } }, { returnDocument: 'after' });
  }

  /** DELETE /admin/models/{llm_backend}/{model}: removes the row (and keeps the seed from restoring it); false when absent. */
  async remove(backend: string, model: string, now: string): Promise<boolean> {
    const deleted = await this.models.deleteOne({ llm_backend: backend, model });
    if (deleted === 0) return false;
    await this.removals.updateOne({ llm_backend: backend, model }, { $set: { removed_at: now } }, { upsert: true });
    return true;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly models: ModelStore;
  }
}
