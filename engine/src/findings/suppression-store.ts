import type { Collection, IndexSpec, Store } from '../store/port';

/**
 * The expiry of a time-boxed suppression (docs/decisions.md "Suppression expiry"): one record per
 * (org, resource_hash, rule_id) while the finding is suppressed with an `expires_at`. The
 * finding's own record (finding-store.ts) stays the spec's shape; this sits beside it.
 */
export interface SuppressionDoc {
  _id?: string;
  org_id: string;
  resource_hash: string;
  rule_id: string;
  /** ISO timestamp at which the finding reopens. */
  expires_at: string;
  created_by: string | null;
  created_at: string;
}

export const SUPPRESSION_INDEXES: Record<string, IndexSpec[]> = {
  finding_suppressions: [
    { name: 'org_resource_rule', keys: { org_id: 1, resource_hash: 1, rule_id: 1 }, unique: true },
    // The expiry sweep reads only the org's lapsed rows, in expiry order.
    { name: 'org_expires', keys: { org_id: 1, expires_at: 1 } },
  ],
};

/** Rows handled per sweep call; the rest lapse at the next read. */
const SWEEP_BATCH = 500;

/** Typed store for suppression expiries. Every method takes the org first. */
export class SuppressionStore {
  private readonly rows: Collection<SuppressionDoc>;

  constructor(store: Store) {
    this.rows = store.collection<SuppressionDoc>('finding_suppressions');
  }

  get(orgId: string, resourceHash: string, ruleId: string): Promise<SuppressionDoc | null> {
    return this.rows.findOne({ org_id: orgId, resource_hash: resourceHash, rule_id: ruleId });
  }

  /** Sets (or moves) the expiry of one finding's suppression. */
  async set(orgId: string, resourceHash: string, ruleId: string, expiresAt: string, by: string | null, now: string): Promise<void> {
    await this.rows.updateOne(
      { org_id: orgId, resource_hash: resourceHash, rule_id: ruleId },
      { $set: { expires_at: expiresAt, created_by: by, created_at: now } },
      { upsert: true },
    );
  }

  /** Removes one finding's expiry (its status changed, or it is suppressed without end). */
  async clear(orgId: string, resourceHash: string, ruleId: string): Promise<void> {
    await this.rows.deleteOne({ org_id: orgId, resource_hash: resourceHash, rule_id: ruleId });
  }

  /** The org's expiries at or before `now`, oldest first, at most SWEEP_BATCH. */
  lapsed(orgId: string, now: string): Promise<SuppressionDoc[]> {
    return this.rows.find({ org_id: orgId, expires_at: { $lte: now } }, { sort: { expires_at: 1 }, limit: SWEEP_BATCH });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly suppressions: SuppressionStore;
  }
}
