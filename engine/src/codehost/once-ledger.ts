import { ConflictError } from '../core/errors';
import type { Collection, Doc } from '../store/port';

/**
 * A ledger of webhook work started at most once per key (analysis-api.md "Inbound: code-host
 * webhook": a redelivery starts nothing new). The key field carries a unique index, so two
 * racing callers of `claim` get one winner on every backend.
 */

/** One claimed key: the org it was claimed for, the job it started (null until started) and when. */
export interface ClaimDoc extends Doc {
  org_id: string;
  job_id: string | null;
  received_at: string;
}

export class OnceLedger {
  /** `field`: the document field holding the key (the collection's unique index is on it). */
  constructor(
    private readonly collection: Collection<ClaimDoc>,
    private readonly field: string,
  ) {}

  /**
   * Claims `key`: the first caller gets null, every later one (a redelivery, a replay, the loser
   * of a race) gets the first claim's record.
   */
  async claim(key: string, orgId: string, now: string): Promise<ClaimDoc | null> {
    try {
      return await this.collection.findOneAndUpdate(
        { [this.field]: key },
        { $setOnInsert: { org_id: orgId, job_id: null, received_at: now } },
        { upsert: true, returnDocument: 'before' },
      );
    } catch (error) {
      // Two concurrent claims of one key: the loser of the unique index sees the winner's record.
      if (!(error instanceof ConflictError)) throw error;
      return (await this.collection.findOne({ [this.field]: key })) ?? { [this.field]: key, org_id: orgId, job_id: null, received_at: now };
    }
  }

  /** Records the job a claim started (later claims answer with it). */
  async setJob(key: string, jobId: string): Promise<void> {
    await this.collection.updateOne({ [this.field]: key }, { $set: { job_id: jobId } });
  }

  /** Forgets a claim whose work could not start, so a redelivery may try again. */
  async release(key: string): Promise<void> {
    await this.collection.deleteOne({ [this.field]: key, job_id: null });
  }
}
