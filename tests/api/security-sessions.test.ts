import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { BOOTSTRAP_KEY, Client, FakeClock, registerUser, startAuthServer } from '../helpers/identity';

// Issue 14: each test performs the attack and shows it no longer gets through.

/** A caller at `ip` (the server trusts X-Forwarded-For in these tests). */
function from(server: TestServer, ip: string, headers: Record<string, string> = {}): Client {
  return new Client(server, { 'X-Forwarded-For': ip, ...headers });
}

describe('second factor: codes and mfa_tokens are single use', () => {
  let server: TestServer;
  const clock = new FakeClock();
  let secret: string;
  let recovery: string[];
  beforeAll(async () => {
    server = await startAuthServer({ clock });
    const { client } = await registerUser(server, 'replay@example.com');
    secret = (await client.post('/auth/me/2fa/enroll')).body.manual_entry_code;
    recovery = (await client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) })).body.recovery_codes;
  });
  afterAll(async () => {
    await server.close();
  });

  const challenge = async () =>
    (await new Client(server).post('/auth/session', { email: 'replay@example.com', password: 'correct-horse-1' })).body.mfa_token as string;

  it('a TOTP code accepted once is refused the second time (also the code that confirmed enrollment)', async () => {
    const confirmCode = totpAt(secret, clock.now());
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: await challenge(), code: confirmCode })).status).toBe(401);
    clock.advance(30_000);
    const code = totpAt(secret, clock.now());
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: await challenge(), code })).status).toBe(200);
    const replay = await new Client(server).post('/auth/session/2fa', { mfa_token: await challenge(), code });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ detail: expect.any(String) });
    clock.advance(30_000);
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: await challenge(), code: totpAt(secret, clock.now()) })).status).toBe(200);
  });

  it('an mfa_token redeems one session; a wrong code leaves it usable', async () => {
    const token = await challenge();
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: token, code: 'nope-nope' })).status).toBe(401);
    const first = await new Client(server).post('/auth/session/2fa', { mfa_token: token, code: recovery[0] });
    expect(first.status).toBe(200);
    const again = await new Client(server).post('/auth/session/2fa', { mfa_token: token, code: recovery[1] });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    // The refused replay did not spend recovery[1].
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: await challenge(), code: recovery[1] })).status).toBe(200);
  });
});

describe('logout revokes the session server-side', () => {
  it("a copied cookie is refused after logout; the account's other sessions live on", async () => {
    const server = await startAuthServer();
    try {
      const { client } = await registerUser(server, 'copied@example.com');
      const other = new Client(server);
      expect((await other.post('/auth/session', { email: 'copied@example.com', password: 'correct-horse-1' })).status).toBe(200);
      const thief = new Client(server);
      thief.cookie = client.cookie;
      expect((await thief.get('/auth/me')).status).toBe(200);
      expect((await client.post('/auth/logout')).status).toBe(200);
      expect((await thief.get('/auth/me')).status).toBe(401);
      expect((await thief.post('/auth/logout')).status).toBe(401);
      expect((await other.get('/auth/me')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('brute force is on by default, with backoff per source', () => {
  let server: TestServer;
  const clock = new FakeClock();
  beforeAll(async () => {
    server = await startAuthServer({ clock, overrides: { server: { host: '127.0.0.1', port: 0, trust_proxy: true } } });
    await registerUser(server, 'victim@example.com');
  });
  afterAll(async () => {
    await server.close();
  });

  it('150 wrong passwords, then the right one: refused with Retry-After; delays double; the victim elsewhere signs in', async () => {
    const attacker = () => from(server, '203.0.113.7');
    const statuses: number[] = [];
    for (let i = 0; i < 150; i += 1) statuses.push((await attacker().post('/auth/session', { email: 'victim@example.com', password: `guess-${i}-x` })).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    const right = await attacker().post('/auth/session', { email: 'victim@example.com', password: 'correct-horse-1' });
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toBe('60');
    expect(right.body).toEqual({ detail: expect.any(String) });

    // Not a lockout: the owner, from another address, signs in at once.
    expect((await from(server, '198.51.100.2').post('/auth/session', { email: 'victim@example.com', password: 'correct-horse-1' })).status).toBe(200);

    // Each failure after a block doubles the next one (1, 2, 4 minutes).
    for (const minutes of [1, 2]) {
      clock.advance(minutes * 60_000);
      expect((await attacker().post('/auth/session', { email: 'victim@example.com', password: 'guess-again' })).status).toBe(401);
      expect((await attacker().post('/auth/session', { email: 'victim@example.com', password: 'correct-horse-1' })).headers.get('retry-after')).toBe(
        String(minutes * 120),
      );
    }
  });

  it('failed credentials of every type add up per source; a validly signed session is not refused', async () => {
    const ip = '192.0.2.50';
    const user = await registerUser(server, 'neighbour@example.com');
    const signedIn = from(server, ip);
    signedIn.cookie = user.client.cookie;
    // 12 accounts × 4 wrong passwords (under the per-account threshold), then two forged cookies: 50.
    for (let a = 0; a < 12; a += 1) {
      for (let i = 0; i < 4; i += 1)
        expect((await from(server, ip).post('/auth/session', { email: `spray-${a}@example.com`, password: 'Winter2026!' })).status).toBe(401);
    }
    const forged = from(server, ip);
    forged.cookie = `mcp_session=${user.client.cookie!.split('=')[1].slice(0, -4)}AAAA`;
    expect((await forged.get('/auth/me')).status).toBe(401);
    expect((await from(server, ip, { 'X-API-Key': 'pwk_guessed' }).get('/auth/me')).status).toBe(401);

    const key = await from(server, ip, { 'X-API-Key': BOOTSTRAP_KEY }).get('/auth/me');
    expect(key.status).toBe(429);
    expect(Number(key.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from(server, ip).post('/auth/session', { email: 'neighbour@example.com', password: 'correct-horse-1' })).status).toBe(429);
    expect((await signedIn.get('/auth/me')).status).toBe(200);
    expect((await from(server, '192.0.2.51', { 'X-API-Key': BOOTSTRAP_KEY }).get('/auth/me')).status).toBe(200);
  });
});

describe('login timing does not tell which e-mails exist', () => {
  it('an unknown e-mail costs a password hash like a known one', async () => {
    const server = await startAuthServer({ overrides: { rate_limit: { enabled: false } } });
    try {
      await registerUser(server, 'known@example.com');
      const time = async (email: string) => {
        const started = performance.now();
        expect((await new Client(server).post('/auth/session', { email, password: 'wrong-password' })).status).toBe(401);
        return performance.now() - started;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      await time('warm-up@example.com');
      for (let i = 0; i < 9; i += 1) {
        known.push(await time('known@example.com'));
        unknown.push(await time(`nobody-${i}@example.com`));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      // Before the fix: ~40 ms against ~2 ms. Now both run one scrypt.
      expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
    } finally {
      await server.close();
    }
  });
});
