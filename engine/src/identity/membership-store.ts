import type { Collection, IndexSpec, Store } from '../store/port';
import type { MembershipDoc, OrgRole } from './types';

export const MEMBERSHIP_INDEXES: Record<string, IndexSpec[]> = {
  memberships: [
    { name: 'org_user', keys: { org_id: 1, user_id: 1 }, unique: true },
    { name: 'user', keys: { user_id: 1 } },
  ],
};

/** Typed store for org memberships; every tenant method takes the org first. */
export class MembershipStore {
  private readonly rows: Collection<MembershipDoc>;
  constructor(store: Store) {
    this.rows = store.collection<MembershipDoc>('memberships');
  }

  get(orgId: string, userId: string): Promise<MembershipDoc | null> {
    return this.rows.findOne({ org_id: orgId, user_id: userId });
  }

  list(orgId: string): Promise<MembershipDoc[]> {
    return this.rows.find({ org_id: orgId }, { sort: { created_at: 1, user_id: 1 } });
  }

  /** Active owners of the org (the sole-owner guardrail). */
  countActiveOwners(orgId: string): Promise<number> {
    return this.rows.count({ org_id: orgId, role: 'owner', is_active: true });
  }

  /**
   * Inserts a membership; `created_account` defaults to false, so every membership written from
   * now on states its provenance and only documents older than the field lack it
   * (account-stewardship.ts). ConflictError (409) when the account is already a member.
   */
  async insert(doc: MembershipDoc): Promise<MembershipDoc> {
    return this.rows.insertOne({ ...doc, created_account: doc.created_account ?? false });
  }

  /**
   * Records that the org's own flow created the account of this membership (registration into
   * the org, an invitation redeemed by signing up), for flows whose membership is inserted by a
   * shared helper (org-service.ts). Call it only right after creating the account.
   */
  async markCreatedAccount(orgId: string, userId: string): Promise<void> {
    await this.rows.updateOne({ org_id: orgId, user_id: userId }, { $set: { created_account: true } });
  }

  update(orgId: string, userId: string, changes: { role?: OrgRole; is_active?: boolean; updated_at: string }): Promise<MembershipDoc | null> {
    return this.rows.findOneAndUpdate({ org_id: orgId, user_id: userId }, { $set: changes }, { returnDocument: 'after' });
  }

  async remove(orgId: string, userId: string): Promise<boolean> {
    return (await this.rows.deleteOne({ org_id: orgId, user_id: userId })) > 0;
  }

  /** Every membership of one account, across orgs (its own org list; not a directory). */
  forUser(userId: string): Promise<MembershipDoc[]> {
    return this.rows.find({ user_id: userId }, { sort: { created_at: 1, org_id: 1 } });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly memberships: MembershipStore;
  }
}
