import { ConflictError } from '../core/errors';
import type { Collection, IndexSpec, Store } from '../store/port';

/**
 * The platform settings overrides (identity-api.md "Platform settings document"): one document
 * shared by every replica on the store. `overrides` holds plain values by flat field name;
 * `secrets` holds write-only values sealed with the server's SecretBox. `version` grows by one
 * on every write so readers can tell a change with one cheap read.
 */
export interface PlatformSettingsDoc {
  _id?: string;
  settings_id: 'platform';
  version: number;
  overrides: Record<string, unknown>;
  secrets: Record<string, string>;
  updated_by: string | null;
  updated_at: string | null;
}

export const SETTINGS_INDEXES: Record<string, IndexSpec[]> = {
  platform_settings: [{ name: 'settings_id', keys: { settings_id: 1 }, unique: true }],
};

const EMPTY: PlatformSettingsDoc = { settings_id: 'platform', version: 0, overrides: {}, secrets: {}, updated_by: null, updated_at: null };

/** Typed store of the one platform settings document. */
export class PlatformSettingsStore {
  private readonly docs: Collection<PlatformSettingsDoc>;
  constructor(store: Store) {
    this.docs = store.collection<PlatformSettingsDoc>('platform_settings');
  }

  /** The stored document, or the empty one (version 0) before any PATCH. */
  async get(): Promise<PlatformSettingsDoc> {
    return (await this.docs.findOne({ settings_id: 'platform' })) ?? { ...EMPTY };
  }

  /**
   * Replaces overrides and secrets when the stored version is still `expectedVersion`
   * (optimistic concurrency between replicas); returns the new document. ConflictError
   * (409) when another writer got there first; the caller re-reads and retries.
   */
  async replace(expectedVersion: number, next: Pick<PlatformSettingsDoc, 'overrides' | 'secrets' | 'updated_by' | 'updated_at'>): Promise<PlatformSettingsDoc> {
    const fields = { overrides: next.overrides, secrets: next.secrets, updated_by: next.updated_by, updated_at: next.updated_at };
    if (expectedVersion === 0) {
      const { upserted } = await this.docs.updateOne({ settings_id: 'platform' }, { $setOnInsert: { ...fields, version: 1 } }, { upsert: true });
      if (!upserted) throw new ConflictError('Platform settings changed concurrently');
      return this.get();
    }
    const after = await this.docs.findOneAndUpdate(
      { settings_id: 'platform', version: expectedVersion },
      { $set: fields, $inc: { version: 1 } },
      { returnDocument: 'after' },
    );
    if (!after) throw new ConflictError('Platform settings changed concurrently');
    return after;
  }
}
