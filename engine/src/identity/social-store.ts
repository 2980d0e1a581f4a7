import type { Collection, IndexSpec, Store } from '../store/port';

/** A provider account linked to a local account (identity-api.md "Social sign-in"). */
export interface SocialIdentityDoc {
  _id?: string;
  user_id: string;
  /** `google` or `microsoft` (DESIGN.md). */
  provider: string;
  /** The provider's `sub` (for microsoft, unique per tenant and app). */
  subject: string;
  /** The e-mail the provider gave when linked (lower-cased). */
  email: string;
  created_at: string;
}

export const SOCIAL_INDEXES: Record<string, IndexSpec[]> = {
  social_identities: [
    { name: 'provider_subject', keys: { provider: 1, subject: 1 }, unique: true },
    { name: 'user_provider', keys: { user_id: 1, provider: 1 }, unique: true },
  ],
};

/** Typed store for linked social identities (platform-wide, like accounts: no org). */
export class SocialIdentityStore {
  private readonly rows: Collection<SocialIdentityDoc>;
  constructor(store: Store) {
    this.rows = store.collection<SocialIdentityDoc>('social_identities');
  }

  bySubject(provider: string, subject: string): Promise<SocialIdentityDoc | null> {
    return this.rows.findOne({ provider, subject });
  }

  forUser(userId: string): Promise<SocialIdentityDoc[]> {
    return this.rows.find({ user_id: userId }, { sort: { created_at: 1, provider: 1 } });
  }

  /** Inserts; ConflictError when that provider account or this user's link to the provider exists. */
  async insert(doc: SocialIdentityDoc): Promise<SocialIdentityDoc> {
    return this.rows.insertOne(doc);
  }

  async remove(userId: string, provider: string): Promise<boolean> {
    return (await this.rows.deleteOne({ user_id: userId, provider })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    /** Social sign-in identities linked to accounts. */
    readonly socialIdentities: SocialIdentityStore;
  }
}
