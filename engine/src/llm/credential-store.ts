import type { Collection, IndexSpec, Store } from '../store/port';
import type { SecretBox } from './secret-box';

/** An org's stored provider key, encrypted at rest (AES-256-GCM); the key is never returned. */
export interface LlmCredentialDoc {
  _id?: string;
  org_id: string;
  provider: string;
  ciphertext: string;
  created_at: string;
}

export const CREDENTIAL_INDEXES: Record<string, IndexSpec[]> = {
  llm_credentials: [{ name: 'org_provider', keys: { org_id: 1, provider: 1 }, unique: true }],
};

/** Typed store for LLM credentials (analysis-api.md "LLM credentials, quota, models"). */
export class LlmCredentialStore {
  private readonly credentials: Collection<LlmCredentialDoc>;
  constructor(
    store: Store,
    private readonly box: SecretBox,
  ) {
    this.credentials = store.collection<LlmCredentialDoc>('llm_credentials');
  }

  /** Upserts the org's key for `provider`; returns `{provider, created_at}`. */
  async put(orgId: string, provider: string, apiKey: string, now: string): Promise<{ provider: string; created_at: string }> {
    await this.credentials.updateOne({ org_id: orgId, provider }, { $set: { ciphertext: this.box.seal(apiKey), created_at: now } }, { upsert: true });
    return { provider, created_at: now };
  }

  async list(orgId: string): Promise<{ provider: string; created_at: string }[]> {
    const rows = await this.credentials.find({ org_id: orgId }, { sort: { provider: 1 } });
    return rows.map((r) => ({ provider: r.provider, created_at: r.created_at }));
  }

  /** The decrypted key, or null when none is stored. */
  async reveal(orgId: string, provider: string): Promise<string | null> {
    const row = await this.credentials.findOne({ org_id: orgId, provider });
    return row ? this.box.open(row.ciphertext) : null;
  }

  async delete(orgId: string, provider: string): Promise<boolean> {
    return (await this.credentials.deleteOne({ org_id: orgId, provider })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly credentials: LlmCredentialStore;
  }
}
