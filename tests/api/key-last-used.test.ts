/**
 * A service key's last use (GET /auth/keys `last_used_at`, docs/decisions.md "Service keys"):
 * null until the key authenticates a request, then the time of that request, moved on by later
 * use at most once a minute; a refused key (revoked, or outside its allowlist) records nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { Client, FakeClock, registerUser, startAuthServer } from '../helpers/identity';

describe('service keys record their last use', () => {
  const clock = new FakeClock();
  let server: TestServer;
  let admin: Client;

  beforeAll(async () => {
    server = await startAuthServer({ clock });
    ({ client: admin } = await registerUser(server, 'keys-last-used@example.com', { orgName: 'Last Used' }));
  });
  afterAll(async () => {
    await server?.close();
  });

  const lastUsed = async (keyId: string) =>
    ((await admin.get('/auth/keys')).body.keys as { key_id: string; last_used_at: string | null }[]).find((k) => k.key_id === keyId)?.last_used_at;

  it('is null for a new key, the request time once used, and moves at most once a minute', async () => {
    const created = await admin.post('/auth/keys', { role: 'member', name: 'ci' });
    expect(created.status).toBe(201);
    expect(await lastUsed(created.body.key_id)).toBeNull();

    const key = new Client(server, { 'X-API-Key': created.body.key });
    const first = clock.now().toISOString();
    expect((await key.get('/findings')).status).toBe(200);
    expect(await lastUsed(created.body.key_id)).toBe(first);

    clock.advance(30_000);
    expect((await key.get('/findings')).status).toBe(200);
    expect(await lastUsed(created.body.key_id)).toBe(first); // within the minute: no write

    clock.advance(31_000);
    const later = clock.now().toISOString();
    expect((await key.get('/findings')).status).toBe(200);
    expect(await lastUsed(created.body.key_id)).toBe(later);
  });

  it('records nothing for a request the key is refused for', async () => {
    const fenced = await admin.post('/auth/keys', { role: 'member', ip_allowlist: ['203.0.113.7'] });
    expect((await new Client(server, { 'X-API-Key': fenced.body.key }).get('/findings')).status).toBe(403);
    expect(await lastUsed(fenced.body.key_id)).toBeNull();

    const revoked = await admin.post('/auth/keys', { role: 'member' });
    expect((await admin.delete(`/auth/keys/${revoked.body.key_id}`)).status).toBe(200);
    expect((await new Client(server, { 'X-API-Key': revoked.body.key }).get('/findings')).status).toBe(401);
    expect(await lastUsed(revoked.body.key_id)).toBeNull();
  });
});
