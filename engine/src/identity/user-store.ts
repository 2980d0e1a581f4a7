import type { Collection, IndexSpec, Store } from '../store/port';
import type { UserDoc } from './types';

export const USER_INDEXES: Record<string, IndexSpec[]> = {
  users: [
    { name: 'user_id', keys: { user_id: 1 }, unique: true },
    { name: 'email', keys: { email: 1 }, unique: true },
  ],
};

/**
 * Typed store for accounts. Accounts are platform-wide (a user may belong to several orgs), so
 * these methods take no org; org-scoped reads go through MembershipStore first.
 */
export class UserStore {
  private readonly users: Collection<UserDoc>;
  constructor(store: Store) {
    this.users = store.collection<UserDoc>('users');
  }

  get(userId: string): Promise<UserDoc | null> {
    return this.users.findOne({ user_id: userId });
  }

  /** By lower-cased e-mail. */
  byEmail(email: string): Promise<UserDoc | null> {
    return this.users.findOne({ email: email.toLowerCase() });
  }

  /** The given accounts (for presenting members of one org). */
  many(userIds: readonly string[]): Promise<UserDoc[]> {
    return userIds.length === 0 ? Promise.resolve([]) : this.users.find({ user_id: { $in: userIds } });
  }

  /** Inserts; ConflictError when the e-mail is taken. */
  async insert(doc: UserDoc): Promise<UserDoc> {
    return this.users.insertOne(doc);
  }

  update(userId: string, changes: Partial<UserDoc>): Promise<UserDoc | null> {
    return this.users.findOneAndUpdate({ user_id: userId }, { $set: changes }, { returnDocument: 'after' });
  }

  /** Ends every session of the account: bumps its session epoch (identity-api.md "Session"). */
  revokeSessions(userId: string, now: string, changes: Partial<UserDoc> = {}): Promise<UserDoc | null> {
    return this.users.findOneAndUpdate(
      { user_id: userId },
      { $set: { ...changes, sessions_revoked_at: now, updated_at: now }, $inc: { session_epoch: 1 } },
      { returnDocument: 'after' },
    );
  }

  /**
   * Records `step` as the account's last accepted TOTP time step, only when it is later than the
   * one recorded (RFC 6238 §5.2: a code is accepted once). Atomic: of two requests presenting the
   * same code, one gets true. False also for an unknown account.
   */
  async claimTotpStep(userId: string, step: number, now: string): Promise<boolean> {
    const update = { $set: { 'two_factor.last_totp_step': step, updated_at: now } };
    const later = await this.users.updateOne({ user_id: userId, 'two_factor.last_totp_step': { $lt: step } }, update);
    if (later.matched > 0) return true;
    return (await this.users.updateOne({ user_id: userId, 'two_factor.last_totp_step': { $exists: false } }, update)).matched > 0;
  }

  /**
   * Removes one unused recovery code (its SHA-256 hex) from `remaining`, the account's list as
   * read; false when the code is not (or no longer) on the account, so a code is used once even
   * by concurrent requests.
   */
  async consumeRecoveryCode(userId: string, codeHash: string, remaining: readonly string[], now: string): Promise<boolean> {
    const result = await this.users.updateOne(
      { user_id: userId, 'two_factor.recovery_codes': codeHash },
      { $set: { 'two_factor.recovery_codes': remaining.filter((c) => c !== codeHash), updated_at: now } },
    );
    return result.matched > 0;
  }

  /** Whether any superadmin exists (default-admin bootstrap). */
  async count(): Promise<number> {
    return this.users.count({});
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly users: UserStore;
  }
}
