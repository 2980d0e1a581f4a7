import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, Client, FakeClock, registerUser, startAuthServer } from '../helpers/identity';

/**
 * Orgs were free and unbounded, so every per-org share (template sandbox lanes, demo analyses,
 * MCP sessions) could be multiplied by creating orgs. One account may now have created at most
 * `registration.max_orgs_per_account` orgs that still exist; the next POST /orgs answers 403
 * (identity-api.md's status for a refused creation). Superadmins are exempt.
 */
const DAY = 86_400_000;
const clock = new FakeClock();
let server: TestServer;

beforeAll(async () => {
  server = await startAuthServer({
    clock,
    overrides: {
      registration: { max_orgs_per_account: 3 },
      auth: { default_admin_email: 'root@example.com', default_admin_password: 'root-password-1' },
    },
  });
});
afterAll(async () => {
  await server.close();
});

async function signIn(email: string, password: string): Promise<Client> {
  const client = new Client(server);
  expect((await client.post('/auth/session', { email, password })).status).toBe(200);
  return client;
}

describe('org creation is capped per account', () => {
  it('the org created at registration counts; the fourth creation is refused with 403 and a detail', async () => {
    const { client } = await registerUser(server, 'founder@example.com', { orgName: 'First' });
    for (const name of ['Second', 'Third']) expect((await client.post('/orgs', { name })).status).toBe(201);
    const refused = await client.post('/orgs', { name: 'Fourth' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'An account may create at most 3 organizations' });
    expect((await client.get('/auth/me/organizations')).body).toHaveLength(3);
  });

  it('parallel creations cannot overshoot the cap', async () => {
    const { client } = await registerUser(server, 'racer@example.com');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => client.post('/orgs', { name: `Race ${i}` })));
    const created = results.filter((r) => r.status === 201).length;
    expect(results.every((r) => r.status === 201 || r.status === 403)).toBe(true);
    expect(created).toBeGreaterThanOrEqual(1);
    expect(created).toBeLessThanOrEqual(3);
    expect((await client.get('/auth/me/organizations')).body).toHaveLength(created);
    // A refused creation leaves nothing behind.
    const names = (await bootstrap(server).get('/admin/organizations')).body.organizations.map((o: { name: string }) => o.name);
    expect(names.filter((n: string) => n.startsWith('Race '))).toHaveLength(created);
  });

  it('an org pending deletion still counts; once purged, its slot is free again', async () => {
    const { client, orgId } = await registerUser(server, 'churn@example.com', { orgName: 'Churn 1' });
    for (const name of ['Churn 2', 'Churn 3']) expect((await client.post('/orgs', { name })).status).toBe(201);
    expect((await bootstrap(server).delete(`/admin/organizations/${orgId}`)).status).toBe(200);
    expect((await client.post('/orgs', { name: 'Churn 4' })).status).toBe(403);
    clock.advance(31 * DAY);
    expect((await bootstrap(server).post('/admin/organizations/purge-pending')).status).toBe(200);
    const again = await signIn('churn@example.com', 'correct-horse-1');
    expect((await again.post('/orgs', { name: 'Churn 4' })).status).toBe(201);
  });

  it('superadmins are exempt; bad bodies and API keys are refused as before', async () => {
    const root = await signIn('root@example.com', 'root-password-1');
    for (let i = 0; i < 5; i += 1) expect((await root.post('/orgs', { name: `Platform ${i}` })).status).toBe(201);
    const { client } = await registerUser(server, 'typo@example.com');
    expect((await client.post('/orgs', {})).status).toBe(422);
    expect((await client.post('/orgs', { name: '' })).status).toBe(422);
    expect((await bootstrap(server).post('/orgs', { name: 'By key' })).status).toBe(403);
  });
});
