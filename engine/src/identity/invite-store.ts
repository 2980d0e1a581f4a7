import type { Collection, IndexSpec, Store } from '../store/port';
import type { InviteDoc } from './types';

export const INVITE_INDEXES: Record<string, IndexSpec[]> = {
  invites: [
    { name: 'token_hash', keys: { token_hash: 1 }, unique: true },
    { name: 'org_invite', keys: { org_id: 1, invite_id: 1 }, unique: true },
    { name: 'email', keys: { email: 1 } },
  ],
};

/** Typed store for invitations (only the SHA-256 of a token is stored). */
export class InviteStore {
  private readonly invites: Collection<InviteDoc>;
  constructor(store: Store) {
    this.invites = store.collection<InviteDoc>('invites');
  }

  /** Unsafe (cross-tenant): a token is presented before its org is known (preview, accept, register). */
  unsafeByTokenHash(tokenHash: string): Promise<InviteDoc | null> {
    return this.invites.findOne({ token_hash: tokenHash });
  }

  /** Unsafe (cross-tenant): the invitations addressed to one account's e-mail, for that account only. */
  unsafeAddressedTo(email: string): Promise<InviteDoc[]> {
    return this.invites.find({ email: email.toLowerCase() }, { sort: { created_at: -1 } });
  }

  async insert(doc: InviteDoc): Promise<InviteDoc> {
    return this.invites.insertOne(doc);
  }

  list(orgId: string): Promise<InviteDoc[]> {
    return this.invites.find({ org_id: orgId }, { sort: { created_at: -1, invite_id: 1 } });
  }

  get(orgId: string, inviteId: string): Promise<InviteDoc | null> {
    return this.invites.findOne({ org_id: orgId, invite_id: inviteId });
  }

  update(orgId: string, inviteId: string, changes: Partial<InviteDoc>): Promise<InviteDoc | null> {
    return this.invites.findOneAndUpdate({ org_id: orgId, invite_id: inviteId }, { $set: changes }, { returnDocument: 'after' });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly invites: InviteStore;
  }
}
