import type { Collection, IndexSpec, Store } from '../store/port';

/** The last successful POST /admin/storage/prepare-docdb (identity-api.md "Platform administration"). */
export interface LastPrepared {
  /** The target URI with any password removed. */
  uri: string;
  database: string;
  updated_at: string;
}

interface StorageDoc {
  _id?: string;
  storage_id: 'platform';
  last_prepared: LastPrepared;
}

export const STORAGE_INDEXES: Record<string, IndexSpec[]> = {
  platform_storage: [{ name: 'storage_id', keys: { storage_id: 1 }, unique: true }],
};

/** Typed store of the one storage record: never admin_uri, never app credentials. */
export class PlatformStorageStore {
  private readonly docs: Collection<StorageDoc>;
  constructor(store: Store) {
    this.docs = store.collection<StorageDoc>('platform_storage');
  }

  async lastPrepared(): Promise<LastPrepared | null> {
    const doc = await this.docs.findOne({ storage_id: 'platform' });
    return doc ? { uri: doc.last_prepared.uri, database: doc.last_prepared.database, updated_at: doc.last_prepared.updated_at } : null;
  }

  async recordPrepared(value: LastPrepared): Promise<void> {
    await this.docs.updateOne({ storage_id: 'platform' }, { $set: { last_prepared: value } }, { upsert: true });
  }
}
