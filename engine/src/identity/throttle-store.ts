import { ConflictError } from '../errors';
import type { Collection, IndexSpec, Store } from '../store/port';
import type { AuthThrottleDoc } from './types';

export const THROTTLE_INDEXES: Record<string, IndexSpec[]> = {
  auth_throttle: [
    { name: 'key', keys: { key: 1 }, unique: true },
    // Reads compare expires_at too, so sweep lag never revives a finished window.
    { name: 'expires', keys: { expires_at: 1 }, expireAfterSeconds: 1 },
  ],
};

/**
 * Brute-force failure counters on the storage port, so every server process sharing the store
 * sees the same counts and blocks (docs/decisions.md "Brute force"). Atomic per key on every
 * backend: the count is one `$inc`, and a block is written only by the failure that produced
 * the latest count. Timestamps are ISO-8601 strings; the policy (thresholds, delays) is the
 * caller's.
 */
export class AuthThrottleStore {
  private readonly docs: Collection<AuthThrottleDoc>;
  constructor(store: Store) {
    this.docs = store.collection<AuthThrottleDoc>('auth_throttle');
  }

  /** The live record of `key` at `now`, or null (none, or expired). */
  get(key: string, now: string): Promise<AuthThrottleDoc | null> {
    return this.docs.findOne({ key, expires_at: { $gt: now } });
  }

  /**
   * Counts one failure of `key` and keeps the record until at least `expiresAt`; an expired
   * record is restarted from zero first. Returns the new failure count (1 for a fresh record).
   */
  async addFailure(key: string, now: string, expiresAt: string): Promise<number> {
    await this.docs.deleteOne({ key, expires_at: { $lte: now } });
    const update = { $inc: { failures: 1 }, $set: { expires_at: expiresAt, updated_at: now }, $setOnInsert: { blocked_until: null } };
    try {
      return (await this.docs.findOneAndUpdate({ key }, update, { upsert: true }))?.failures ?? 1;
    } catch (error) {
      // Two processes upserting the same fresh key: the loser's retry increments the winner's record.
      if (!(error instanceof ConflictError)) throw error;
      return (await this.docs.findOneAndUpdate({ key }, update, { upsert: true }))?.failures ?? 1;
    }
  }

  /**
   * Blocks `key` until `blockedUntil` and keeps the record until `expiresAt`, unless a later
   * failure has already moved the count past `failures` (that failure sets its own block).
   */
  async setBlock(key: string, failures: number, blockedUntil: string, expiresAt: string): Promise<void> {
    await this.docs.updateOne({ key, failures }, { $set: { blocked_until: blockedUntil, expires_at: expiresAt } });
  }

  /** Forgets `key` (a success). */
  async clear(key: string): Promise<void> {
    await this.docs.deleteOne({ key });
  }
}
