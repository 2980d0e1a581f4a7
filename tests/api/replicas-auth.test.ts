import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { Client, FakeClock, registerUser, startReplicaPair } from '../helpers/identity';
import { REPLICA_STORES } from '../helpers/replica-backends';

// Two servers' worth of state on one store (a SQLite file in WAL mode; MongoDB when MONGODB_URI
// is set): revocations, single-use tokens and brute-force counters live in the store, not in
// either server's memory.
describe.each(REPLICA_STORES)('two replicas on one $name store share sessions and brute-force state', (store) => {
  let a: TestServer;
  let b: TestServer;
  let close: (() => Promise<void>) | undefined;
  const clock = new FakeClock();
  beforeAll(async () => {
    if (store.enabled) ({ a, b, close } = await startReplicaPair(clock, store));
  });
  afterAll(async () => {
    await close?.();
  });

  it.runIf(store.enabled)('a logout on one replica is refused on the other', async () => {
    const { client } = await registerUser(a, 'two@example.com');
    const onB = new Client(b);
    onB.cookie = client.cookie;
    expect((await onB.get('/auth/me')).status).toBe(200);
    expect((await client.post('/auth/logout')).status).toBe(200);
    expect((await onB.get('/auth/me')).status).toBe(401);
  });

  it.runIf(store.enabled)('a service key revoked on one replica is refused on the other at once', async () => {
    const { client } = await registerUser(a, 'keys-two@example.com', { orgName: 'Two Replicas Keys' });
    const created = await client.post('/auth/keys', { role: 'member', name: 'ci' });
    expect(created.status, created.text).toBe(201);
    const onB = new Client(b, { 'X-API-Key': created.body.key });
    expect((await onB.get('/auth/me')).status).toBe(200);
    expect((await client.delete(`/auth/keys/${created.body.key_id}`)).status).toBe(200);
    expect((await onB.get('/auth/me')).status).toBe(401);
  });

  it.runIf(store.enabled)('failed logins counted on either replica add up, and the block holds on both', async () => {
    await registerUser(a, 'shared@example.com');
    const attempt = (server: TestServer, password: string) => new Client(server).post('/auth/session', { email: 'shared@example.com', password });
    for (const server of [a, b, a, b]) expect((await attempt(server, 'wrong-password')).status).toBe(401);
    expect((await attempt(a, 'wrong-password')).status).toBe(401); // the fifth failure, wherever it lands
    for (const server of [a, b]) {
      const refused = await attempt(server, 'correct-horse-1');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    }
  });

  it.runIf(store.enabled)('an mfa_token and a TOTP code redeemed on one replica are refused on the other', async () => {
    const { client } = await registerUser(a, 'mfa-two@example.com');
    const secret = (await client.post('/auth/me/2fa/enroll')).body.manual_entry_code as string;
    await client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) });
    clock.advance(30_000);
    const challenge = async (server: TestServer) =>
      (await new Client(server).post('/auth/session', { email: 'mfa-two@example.com', password: 'correct-horse-1' })).body.mfa_token as string;
    const token = await challenge(a);
    const code = totpAt(secret, clock.now());
    expect((await new Client(a).post('/auth/session/2fa', { mfa_token: token, code })).status).toBe(200);
    expect((await new Client(b).post('/auth/session/2fa', { mfa_token: token, code })).status).toBe(401);
    expect((await new Client(b).post('/auth/session/2fa', { mfa_token: await challenge(b), code })).status).toBe(401);
  });
});
