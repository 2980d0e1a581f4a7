import type { Severity } from '../core/payload';
import type { Collection, IndexSpec, Store } from '../store/port';

/**
 * An org's HCP Terraform run-task integration (docs/decisions.md "Run tasks"): the HMAC key
 * HCP signs requests with (sealed with the SecretBox, never presented), the backend and model
 * run-task analyses use (with the org's stored LLM credential), and the gate severity.
 */
export interface RunTaskConfigDoc {
  _id?: string;
  org_id: string;
  /** SecretBox-sealed HMAC key. */
  hmac_key_sealed: string;
  llm_backend: string;
  model: string;
  /** An open finding at or above this severity fails the task. */
  gate_severity: Severity;
  created_at: string;
  updated_at: string;
}

export const RUN_TASK_INDEXES: Record<string, IndexSpec[]> = {
  run_task_configs: [{ name: 'org', keys: { org_id: 1 }, unique: true }],
};

/** Typed store for the one run-task config per org. Every method takes the org first. */
export class RunTaskConfigStore {
  private readonly configs: Collection<RunTaskConfigDoc>;
  constructor(store: Store) {
    this.configs = store.collection<RunTaskConfigDoc>('run_task_configs');
  }

  get(orgId: string): Promise<RunTaskConfigDoc | null> {
    return this.configs.findOne({ org_id: orgId });
  }

  /** Replaces the config, keeping created_at of an existing one. */
  async put(
    orgId: string,
    config: Pick<RunTaskConfigDoc, 'hmac_key_sealed' | 'llm_backend' | 'model' | 'gate_severity'>,
    now: string,
  ): Promise<RunTaskConfigDoc> {
    await this.configs.updateOne({ org_id: orgId }, { $set: { ...config, updated_at: now }, $setOnInsert: { created_at: now } }, { upsert: true });
    return (await this.get(orgId)) as RunTaskConfigDoc;
  }

  async delete(orgId: string): Promise<boolean> {
    return (await this.configs.deleteOne({ org_id: orgId })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly runTasks: RunTaskConfigStore;
  }
}
