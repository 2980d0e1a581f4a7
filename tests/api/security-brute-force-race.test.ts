import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { Client, FakeClock, registerUser, startAuthServer, startReplicaPair } from '../helpers/identity';
import { REPLICA_STORES } from '../helpers/replica-backends';

/**
 * The brute-force counters used to be read before the password hash and written after it, so
 * parallel guesses all passed the read: 30 wrong passwords at once were all checked and none was
 * refused. Each attack below runs in parallel over HTTP; the attempt is now reserved in the
 * store before the check (server/src/auth/brute-force.ts `attempt`).
 */
const TRUST_PROXY = { server: { host: '127.0.0.1', port: 0, trust_proxy: true } };

function from(server: TestServer, ip: string): Client {
  return new Client(server, { 'X-Forwarded-For': ip });
}

const statuses = (results: { status: number }[]) => results.map((r) => r.status);
const count = (list: number[], status: number) => list.filter((s) => s === status).length;

describe('parallel guesses are counted before they are checked', () => {
  let server: TestServer;
  const clock = new FakeClock();
  beforeAll(async () => {
    server = await startAuthServer({ clock, overrides: TRUST_PROXY });
  });
  afterAll(async () => {
    await server.close();
  });

  it('30 parallel wrong passwords for one account: 5 checked, 25 refused; the right one waits out the block', async () => {
    await registerUser(server, 'race@example.com');
    const attacker = () => from(server, '203.0.113.30');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attacker().post('/auth/session', { email: 'race@example.com', password: `guess-${i}-x` })),
    );
    const list = statuses(results);
    expect(count(list, 401)).toBe(5);
    expect(count(list, 429)).toBe(25);
    for (const res of results.filter((r) => r.status === 429)) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }

    const early = await attacker().post('/auth/session', { email: 'race@example.com', password: 'correct-horse-1' });
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('60');
    clock.advance(59_000);
    expect((await attacker().post('/auth/session', { email: 'race@example.com', password: 'correct-horse-1' })).status).toBe(429);
    clock.advance(1_000);
    expect((await attacker().post('/auth/session', { email: 'race@example.com', password: 'correct-horse-1' })).status).toBe(200);
  });

  it('after a block, parallel guesses get one check at a time, and that one failure doubles the block', async () => {
    await registerUser(server, 'after-block@example.com');
    const attacker = () => from(server, '203.0.113.31');
    const guess = (i: number) => attacker().post('/auth/session', { email: 'after-block@example.com', password: `guess-${i}-y` });
    expect(count(statuses(await Promise.all(Array.from({ length: 10 }, (_, i) => guess(i)))), 401)).toBe(5);
    clock.advance(60_000);
    const second = statuses(await Promise.all(Array.from({ length: 10 }, (_, i) => guess(i + 10))));
    expect(count(second, 401)).toBe(1);
    expect(count(second, 429)).toBe(9);
    expect((await attacker().post('/auth/session', { email: 'after-block@example.com', password: 'correct-horse-1' })).headers.get('retry-after')).toBe('120');
  });

  it('60 parallel wrong passwords for 60 accounts from one source: at most 50 checked (the ip counter)', async () => {
    await registerUser(server, 'spray-target@example.com');
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => from(server, '203.0.113.32').post('/auth/session', { email: `spray-${i}@example.com`, password: 'Winter2026!' })),
    );
    const list = statuses(results);
    expect(count(list, 401)).toBe(50);
    expect(count(list, 429)).toBe(10);
    expect((await from(server, '203.0.113.32').post('/auth/session', { email: 'spray-target@example.com', password: 'correct-horse-1' })).status).toBe(429);
    // Another source is not affected.
    expect((await from(server, '198.51.100.32').post('/auth/session', { email: 'spray-target@example.com', password: 'correct-horse-1' })).status).toBe(200);
  });

  it('30 parallel wrong second-factor codes: 5 checked, 25 refused; a right code waits out the block', async () => {
    const { client } = await registerUser(server, 'race-2fa@example.com');
    const secret = (await client.post('/auth/me/2fa/enroll')).body.manual_entry_code as string;
    expect((await client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) })).status).toBe(200);
    clock.advance(30_000);
    const holder = () => from(server, '203.0.113.33');
    const challenge = async () => {
      const res = await holder().post('/auth/session', { email: 'race-2fa@example.com', password: 'correct-horse-1' });
      expect(res.status).toBe(200);
      return res.body.mfa_token as string;
    };
    const tokens: string[] = [];
    for (let i = 0; i < 30; i += 1) tokens.push(await challenge());
    const results = await Promise.all(tokens.map((mfa_token) => holder().post('/auth/session/2fa', { mfa_token, code: 'nope-nope' })));
    const list = statuses(results);
    expect(count(list, 401)).toBe(5);
    expect(count(list, 429)).toBe(25);
    expect(Number(results.find((r) => r.status === 429)!.headers.get('retry-after'))).toBeGreaterThan(0);

    // The block is per account, from any source, and holds for the right code too.
    const right = await from(server, '198.51.100.33').post('/auth/session/2fa', { mfa_token: await challenge(), code: totpAt(secret, clock.now()) });
    expect(right.status).toBe(429);
    clock.advance(60_000);
    expect((await holder().post('/auth/session/2fa', { mfa_token: await challenge(), code: totpAt(secret, clock.now()) })).status).toBe(200);
  });

  it('bad bodies answer 422 before any counter is touched', async () => {
    for (let i = 0; i < 8; i += 1) {
      expect((await from(server, '203.0.113.34').post('/auth/session', { email: 'not-an-email', password: '' })).status).toBe(422);
      expect((await from(server, '203.0.113.34').post('/auth/session/2fa', { mfa_token: 'x' })).status).toBe(422);
    }
    await registerUser(server, 'bodies@example.com');
    expect((await from(server, '203.0.113.34').post('/auth/session', { email: 'bodies@example.com', password: 'correct-horse-1' })).status).toBe(200);
  });
});

describe.each(REPLICA_STORES)('the reservation holds across replicas on one $name store', (store) => {
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

  it.runIf(store.enabled)('30 parallel wrong passwords split over two replicas: 5 checked in all', async () => {
    await registerUser(a, 'two-race@example.com');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => new Client(i % 2 ? a : b).post('/auth/session', { email: 'two-race@example.com', password: `guess-${i}-z` })),
    );
    const list = statuses(results);
    expect(count(list, 401)).toBe(5);
    expect(count(list, 429)).toBe(25);
    for (const server of [a, b])
      expect((await new Client(server).post('/auth/session', { email: 'two-race@example.com', password: 'correct-horse-1' })).status).toBe(429);
  });
});
