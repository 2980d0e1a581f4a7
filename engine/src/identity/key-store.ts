import type { Collection, IndexSpec, Store } from '../store/port';
import type { ApiKeyDoc } from './types';

export const API_KEY_INDEXES: Record<string, IndexSpec[]> = {
  api_keys: [
    { name: 'key_hash', keys: { key_hash: 1 }, unique: true },
    { name: 'org_key', keys: { org_id: 1, key_id: 1 }, unique: true },
  ],
};

/** Typed store for service-account keys (only hashes are stored). */
export class ApiKeyStore {
  private readonly keys: Collection<ApiKeyDoc>;
  constructor(store: Store) {
    this.keys = store.collection<ApiKeyDoc>('api_keys');
  }

  /**
   * Unsafe (cross-tenant): resolving a presented key must find it before its org is known.
   * Only the authentication layer calls this.
   */
  unsafeByHash(keyHash: string): Promise<ApiKeyDoc | null> {
    return this.keys.findOne({ key_hash: keyHash });
  }

  async insert(doc: ApiKeyDoc): Promise<ApiKeyDoc> {
    return this.keys.insertOne(doc);
  }

  list(orgId: string): Promise<ApiKeyDoc[]> {
    return this.keys.find({ org_id: orgId }, { sort: { created_at: 1, key_id: 1 } });
  }

  get(orgId: string, keyId: string): Promise<ApiKeyDoc | null> {
    return this.keys.findOne({ org_id: orgId, key_id: keyId });
  }

  /** Records that the key authenticated a request at `at` (ISO instant): its last use, shown in the key list. */
  async markUsed(orgId: string, keyId: string, at: string): Promise<void> {
    await this.keys.updateOne({ org_id: orgId, key_id: keyId }, { $set: { last_used_at: at } });
  }

  revoke(orgId: string, keyId: string, now: string): Promise<ApiKeyDoc | null> {
    return this.keys.findOneAndUpdate({ org_id: orgId, key_id: keyId }, { $set: { is_active: false, revoked_at: now } }, { returnDocument: 'after' });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly apiKeys: ApiKeyStore;
  }
}
