import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store';
import type { Store } from '../store/port';
import { ensureSchema } from '../stores';
import { RevokedTokenStore } from './revoked-token-store';
import { AuthThrottleStore } from './throttle-store';
import { UserStore } from './user-store';
import type { AuthThrottleDoc, UserDoc } from './types';

// The issue-14 state (brute-force counters, revoked/consumed tokens, the last TOTP step) on every
// adapter, through the port only. docdb runs when MONGODB_URI is set, as in the conformance suite.
const MONGODB_URI = process.env.MONGODB_URI;
const backends: { name: string; enabled: boolean; open(): { store: Promise<Store>; destroy(): Promise<void> | void } }[] = [
  { name: 'memory', enabled: true, open: () => ({ store: openStore({ backend: 'memory' }), destroy: () => {} }) },
  {
    name: 'sqlite',
    enabled: true,
    open: () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-auth-state-'));
      return { store: openStore({ backend: 'sqlite', dataDir }), destroy: () => rmSync(dataDir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'docdb',
    enabled: MONGODB_URI !== undefined,
    open: () => {
      const database = `planwarden_test_${randomUUID().slice(0, 8)}`;
      return {
        store: openStore({ backend: 'docdb', uri: MONGODB_URI as string, database }),
        async destroy() {
          const { MongoClient } = await import('mongodb');
          const client = await new MongoClient(MONGODB_URI as string).connect();
          await client.db(database).dropDatabase();
          await client.close();
        },
      };
    },
  },
];

const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T10:05:00.000Z';
const T2 = '2026-11-22T10:20:00.000Z';

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`auth state on ${backend.name}`, () => {
    let store: Store;
    let destroy: () => Promise<void> | void;
    beforeEach(async () => {
      const opened = backend.open();
      store = await opened.store;
      destroy = opened.destroy;
      await ensureSchema(store);
    });
    afterEach(async () => {
      await store.close();
      await destroy();
    });

    it('counts failures atomically, blocks only from the latest count, restarts after expiry', async () => {
      const throttle = new AuthThrottleStore(store);
      const counts = await Promise.all([1, 2, 3].map(() => throttle.addFailure('k', T0, T1)));
      expect(counts.sort()).toEqual([1, 2, 3]);
      await throttle.setBlock('k', 2, T1, T2, 2); // a stale count: ignored
      expect((await throttle.get('k', T0))?.blocked_until).toBe(T0);
      await throttle.setBlock('k', 3, T1, T2, 2);
      expect(await throttle.get('k', T0)).toMatchObject({ failures: 3, used: 2, blocked_until: T1, expires_at: T2 });
      expect(await throttle.get('k', T2)).toBeNull();
      expect(await throttle.addFailure('k', T2, '2026-11-22T10:35:00.000Z')).toBe(1);
      await throttle.clear('k');
      expect(await throttle.get('k', T0)).toBeNull();
    });

    it('admits at most `limit` parallel attempts, none while blocked, one at a time after a block', async () => {
      const throttle = new AuthThrottleStore(store);
      const admitted = await Promise.all(Array.from({ length: 12 }, () => throttle.reserve('r', T0, T2, 3)));
      expect(admitted.filter((r) => r.admitted)).toHaveLength(3);
      expect(admitted.find((r) => !r.admitted)?.doc).toMatchObject({ used: 3, failures: 0 });
      // A released slot (a success, or not a guess) is free again; a release after a block is dropped.
      await throttle.release('r', T0);
      expect((await throttle.reserve('r', T0, T2, 3)).admitted).toBe(true);
      for (let i = 0; i < 3; i += 1) expect(await throttle.addFailure('r', T0, T2, true)).toBe(i + 1);
      await throttle.setBlock('r', 3, T1, T2, 2);
      await throttle.release('r', T0);
      expect(await throttle.get('r', T0)).toMatchObject({ used: 2, failures: 3 });
      expect((await throttle.reserve('r', T0, T2, 3)).admitted).toBe(false); // blocked until T1
      const after = await Promise.all([1, 2, 3].map(() => throttle.reserve('r', T1, T2, 3)));
      expect(after.filter((r) => r.admitted)).toHaveLength(1);
      // Once the record expires, counting starts over.
      expect((await throttle.reserve('r', T2, '2026-11-22T10:35:00.000Z', 3)).doc).toMatchObject({ used: 1, failures: 0 });
    });

    it('drops a counter written before reservations instead of refusing forever', async () => {
      const throttle = new AuthThrottleStore(store);
      await store.collection<AuthThrottleDoc>('auth_throttle').insertOne({ key: 'old', failures: 2, blocked_until: null, expires_at: T2, updated_at: T0 });
      const r = await throttle.reserve('old', T0, T2, 3);
      expect(r).toMatchObject({ admitted: true, doc: { used: 1, failures: 0 } });
    });

    it('a token is consumed once, released on a wrong code, revoked idempotently', async () => {
      const tokens = new RevokedTokenStore(store);
      const doc = { token_id: 'jti-1', kind: 'mfa' as const, user_id: 'u1', expires_at: T1, created_at: T0 };
      const results = await Promise.all([tokens.consume(doc), tokens.consume(doc)]);
      expect(results.sort()).toEqual([false, true]);
      await tokens.release('jti-1');
      expect(await tokens.isRevoked('jti-1')).toBe(false);
      await tokens.revoke({ ...doc, token_id: 'jti-2', kind: 'session' });
      await tokens.revoke({ ...doc, token_id: 'jti-2', kind: 'session' });
      expect(await tokens.isRevoked('jti-2')).toBe(true);
    });

    it('a TOTP step and a recovery code are accepted once', async () => {
      const users = new UserStore(store);
      const user: UserDoc = {
        user_id: 'u1',
        email: 'u1@example.com',
        name: null,
        password_hash: null,
        auth_provider: 'local',
        is_active: true,
        is_superadmin: false,
        two_factor: { enabled: true, secret: 's', pending_secret: null, recovery_codes: ['h1', 'h2'] },
        session_epoch: 0,
        sessions_revoked_at: null,
        last_org_id: null,
        created_at: T0,
        updated_at: T0,
      };
      await users.insert(user);
      const first = await Promise.all([users.claimTotpStep('u1', 100, T0), users.claimTotpStep('u1', 100, T0)]);
      expect(first.sort()).toEqual([false, true]);
      expect(await users.claimTotpStep('u1', 99, T0)).toBe(false);
      expect(await users.claimTotpStep('u1', 101, T0)).toBe(true);
      expect(await users.consumeRecoveryCode('u1', 'h1', ['h1', 'h2'], T0)).toBe(true);
      expect(await users.consumeRecoveryCode('u1', 'h1', ['h1', 'h2'], T0)).toBe(false);
      expect((await users.get('u1'))?.two_factor).toMatchObject({ recovery_codes: ['h2'], last_totp_step: 101 });
    });
  });
}
