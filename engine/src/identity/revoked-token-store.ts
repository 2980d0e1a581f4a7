import { ConflictError } from '../core/errors';
import type { Collection, IndexSpec, Store } from '../store/port';
import type { RevokedTokenDoc } from './types';

export const REVOKED_TOKEN_INDEXES: Record<string, IndexSpec[]> = {
  revoked_tokens: [
    { name: 'token_id', keys: { token_id: 1 }, unique: true },
    // A revoked token past its own expiry is refused anyway, so the record may go.
    { name: 'expires', keys: { expires_at: 1 }, expireAfterSeconds: 1 },
  ],
};

/**
 * JWT ids that must be refused (identity-api.md "Session", docs/decisions.md "Logout"): the
 * sessions ended by logout and the mfa_tokens already redeemed. On the storage port, so a
 * revocation written by one server process is seen by every other one sharing the store.
 */
export class RevokedTokenStore {
  private readonly docs: Collection<RevokedTokenDoc>;
  constructor(store: Store) {
    this.docs = store.collection<RevokedTokenDoc>('revoked_tokens');
  }

  /** Whether `tokenId` was revoked or consumed. */
  async isRevoked(tokenId: string): Promise<boolean> {
    return (await this.docs.findOne({ token_id: tokenId })) !== null;
  }

  /** Revokes a token (idempotent). */
  async revoke(doc: Omit<RevokedTokenDoc, '_id'>): Promise<void> {
    const { token_id: tokenId, ...rest } = doc;
    await this.docs.updateOne({ token_id: tokenId }, { $setOnInsert: rest }, { upsert: true });
  }

  /**
   * Marks a single-use token as used. Returns false when it already was (a replay, or a
   * concurrent redemption that won); atomic through the unique `token_id` index.
   */
  async consume(doc: Omit<RevokedTokenDoc, '_id'>): Promise<boolean> {
    try {
      await this.docs.insertOne({ ...doc });
      return true;
    } catch (error) {
      if (error instanceof ConflictError) return false;
      throw error;
    }
  }

  /** Undoes `consume` (the redemption failed on a wrong code, so the token stays usable). */
  async release(tokenId: string): Promise<void> {
    await this.docs.deleteOne({ token_id: tokenId });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    /** Logged-out sessions and redeemed mfa_tokens, by JWT id. */
    readonly revokedTokens: RevokedTokenStore;
  }
}
