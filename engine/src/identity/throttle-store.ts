import { ConflictError } from '../core/errors';
import type { Collection, IndexSpec, Store } from '../store/port';
import type { AuthThrottleDoc } from './types';

export const THROTTLE_INDEXES: Record<string, IndexSpec[]> = {
  auth_throttle: [
    { name: 'key', keys: { key: 1 }, unique: true },
    // Reads compare expires_at too, so sweep lag never revives a finished window.
    { name: 'expires', keys: { expires_at: 1 }, expireAfterSeconds: 1 },
  ],
};

/** What `reserve` answers: the record after the admitted attempt, or the record that refused it. */
export type Reservation = { readonly admitted: true; readonly doc: AuthThrottleDoc } | { readonly admitted: false; readonly doc: AuthThrottleDoc | null };

/**
 * Brute-force counters on the storage port, so every server process sharing the store sees the
 * same counts and blocks (docs/decisions.md "Brute force"). Every decision is one atomic update
 * per key on every backend: an attempt is admitted by the `$inc` that reserves it (before the
 * slow password hash runs), a failure is one `$inc`, and a block is written only by the failure
 * that produced the latest count. Timestamps are ISO-8601 strings; the policy (thresholds,
 * delays) is the caller's.
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
   * Admits one attempt of `key` at `now` when fewer than `limit` are admitted in the current
   * phase (`used`) and no block lasts past `now`, in one guarded `$inc`: parallel attempts on
   * any number of processes never exceed `limit`. An expired record restarts from zero first; a
   * missing one is created with this attempt admitted and kept until `expiresAt`. A record
   * written before reservations existed is dropped (its count is lost once).
   */
  async reserve(key: string, now: string, expiresAt: string, limit: number): Promise<Reservation> {
    await this.docs.deleteOne({ key, expires_at: { $lte: now } });
    let current: AuthThrottleDoc | null = null;
    for (let round = 0; round < 3; round += 1) {
      try {
        const doc = await this.docs.findOneAndUpdate(
          { key, used: { $lt: limit }, blocked_until: { $lte: now } },
          { $inc: { used: 1 }, $set: { updated_at: now }, $setOnInsert: { failures: 0, blocked_until: now, expires_at: expiresAt } },
          { upsert: true },
        );
        if (doc) return { admitted: true, doc };
      } catch (error) {
        // The key exists but refused the guard (the upsert's insert collides), or another
        // process created it between our look and our insert.
        if (!(error instanceof ConflictError)) throw error;
      }
      current = await this.docs.findOne({ key });
      if (current === null) continue;
      if (current.used === undefined || current.blocked_until === null) {
        await this.docs.deleteOne({ key, blocked_until: null });
        await this.docs.deleteOne({ key, used: { $exists: false } });
        continue;
      }
      if (current.used >= limit || current.blocked_until > now) return { admitted: false, doc: current };
    }
    return { admitted: false, doc: current };
  }

  /**
   * Counts one failure of `key` and keeps the record until at least `expiresAt`; returns the
   * new failure count. `reserved`: the attempt was admitted by `reserve` (its slot is already
   * used); otherwise the failure also uses a slot. An expired record restarts from zero first,
   * and a missing one (cleared by a concurrent success) is created.
   */
  async addFailure(key: string, now: string, expiresAt: string, reserved = false): Promise<number> {
    await this.docs.deleteOne({ key, expires_at: { $lte: now } });
    const set = { expires_at: expiresAt, updated_at: now };
    if (reserved) {
      const doc = await this.docs.findOneAndUpdate({ key }, { $inc: { failures: 1 }, $set: set });
      if (doc) return doc.failures;
    }
    const update = { $inc: { failures: 1, used: 1 }, $set: set, $setOnInsert: { blocked_until: now } };
    try {
      return (await this.docs.findOneAndUpdate({ key }, update, { upsert: true }))?.failures ?? 1;
    } catch (error) {
      // Two processes upserting the same fresh key: the loser's retry increments the winner's record.
      if (!(error instanceof ConflictError)) throw error;
      return (await this.docs.findOneAndUpdate({ key }, update, { upsert: true }))?.failures ?? 1;
    }
  }

  /**
   * Blocks `key` until `blockedUntil`, keeps the record until `expiresAt` and sets `used` to
   * `usedAfter` (the attempts a caller may start once the block ends count from there), unless a
   * later failure has already moved the count past `failures` (that failure sets its own block).
   */
  async setBlock(key: string, failures: number, blockedUntil: string, expiresAt: string, usedAfter: number): Promise<void> {
    await this.docs.updateOne({ key, failures }, { $set: { blocked_until: blockedUntil, expires_at: expiresAt, used: usedAfter } });
  }

  /**
   * Gives back the slot of an attempt admitted while `key`'s block read `blockedUntil` and that
   * neither failed nor cleared the record. A block set since then has reset `used` itself, so
   * the release is dropped.
   */
  async release(key: string, blockedUntil: string): Promise<void> {
    await this.docs.updateOne({ key, blocked_until: blockedUntil, used: { $gt: 0 } }, { $inc: { used: -1 } });
  }

  /** Forgets `key` (a success). */
  async clear(key: string): Promise<void> {
    await this.docs.deleteOne({ key });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    /** Brute-force failure counters shared by every server process on the store. */
    readonly throttle: AuthThrottleStore;
  }
}
