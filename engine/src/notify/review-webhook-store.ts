import type { Collection, IndexSpec, Store } from '../store/port';

/** analysis-api.md "Review webhook config"; the secret is sealed at rest and never presented. */
export interface ReviewWebhookDoc {
  _id?: string;
  org_id: string;
  url: string;
  enabled: boolean;
  /** SecretBox-sealed secret, or null. */
  secret_sealed: string | null;
  created_at: string;
  updated_at: string;
}

export const REVIEW_WEBHOOK_INDEXES: Record<string, IndexSpec[]> = {
  review_webhooks: [{ name: 'org', keys: { org_id: 1 }, unique: true }],
};

/** Typed store for the one review webhook per org. Every method takes the org first. */
export class ReviewWebhookStore {
  private readonly hooks: Collection<ReviewWebhookDoc>;
  constructor(store: Store) {
    this.hooks = store.collection<ReviewWebhookDoc>('review_webhooks');
  }

  get(orgId: string): Promise<ReviewWebhookDoc | null> {
    return this.hooks.findOne({ org_id: orgId });
  }

  /** Replaces the whole config, keeping created_at of an existing one. */
  async put(orgId: string, config: Pick<ReviewWebhookDoc, 'url' | 'enabled' | 'secret_sealed'>, now: string): Promise<ReviewWebhookDoc> {
    await this.hooks.updateOne({ org_id: orgId }, { $set: { ...config, updated_at: now }, $setOnInsert: { created_at: now } }, { upsert: true });
    return (await this.get(orgId)) as ReviewWebhookDoc;
  }

  async delete(orgId: string): Promise<boolean> {
    return (await this.hooks.deleteOne({ org_id: orgId })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly reviewWebhooks: ReviewWebhookStore;
  }
}
