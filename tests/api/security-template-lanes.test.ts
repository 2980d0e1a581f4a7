import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, type TestServer } from '../helpers/test-server';
import { Client, registerUser, startAuthServer } from '../helpers/identity';

/**
 * Template fairness was per org, and orgs are free: one account with four orgs pushed another
 * org's preview from 340 ms to 6 s. The sandbox lane is now the account responsible for a render
 * (engine/src/report/template-sandbox-lane.ts): its session, or the account that created its
 * service key. Assertions are on admission (429s) and completion order, never on timings.
 */
let server: TestServer;
const PLAN = 'tfplan-json/terraform-showjson-basic-delete.json';
// 5^14 loop iterations: LiquidJS stops it at its 3 s render limit (422).
const SLOW = `${Array.from({ length: 14 }, (_, i) => `{% for s${i} in severities %}`).join('')}x${'{% endfor %}'.repeat(14)}`;

/** Ingests the plan into `namespace` with the given credential headers. */
async function ingestPlan(namespace: string, headers: Record<string, string>): Promise<void> {
  const res = await server.api(`/terraform/${namespace}/ingest`, { method: 'POST', body: new Uint8Array(corpusFile(PLAN)), headers });
  expect(res.status, await res.clone().text()).toBe(201);
}

beforeAll(async () => {
  server = await startAuthServer({
    overrides: { templates: { pool_size: 2, max_concurrent_per_org: 1, max_queued_per_org: 2, max_queued: 64 } },
  });
});
afterAll(async () => {
  await server.close();
});

describe('template sandbox lanes are per account, not per org', () => {
  it("one account's previews across three of its orgs get one share; another account's preview is not pushed out", async () => {
    // The flooder: a session in org 1, and a service key it created in each of orgs 2 and 3.
    const flooder = await registerUser(server, 'many-orgs@example.com', { orgName: 'Flood One' });
    const callers: { orgId: string; headers: Record<string, string> }[] = [
      { orgId: flooder.orgId as string, headers: { cookie: flooder.client.cookie as string } },
    ];
    for (const name of ['Flood Two', 'Flood Three']) {
      const created = await flooder.client.post('/orgs', { name });
      expect(created.status).toBe(201);
      const switcher = new Client(server);
      switcher.cookie = flooder.client.cookie;
      expect((await switcher.post('/auth/session/switch', { org_id: created.body.org_id })).status).toBe(200);
      const key = await switcher.post('/auth/keys', { name: 'ci', role: 'member' });
      expect(key.status).toBe(201);
      callers.push({ orgId: created.body.org_id, headers: { 'X-API-Key': key.body.key } });
    }
    for (const caller of callers) await ingestPlan('ns-flood', caller.headers);
    const victim = await registerUser(server, 'calm@example.com', { orgName: 'Calm' });
    await ingestPlan('ns-calm', { cookie: victim.client.cookie as string });

    const settled: string[] = [];
    let sixRefused: () => void = () => {};
    const refused = new Promise<void>((resolve) => {
      sixRefused = resolve;
    });
    const flood = callers.flatMap((caller, o) =>
      Array.from({ length: 3 }, (_, i) =>
        server
          .api(`/orgs/${caller.orgId}/report-templates/preview`, {
            method: 'POST',
            headers: caller.headers,
            json: { source: SLOW, format: 'markdown', namespace: 'ns-flood' },
          })
          .then(async (res) => {
            settled.push(`f${o}.${i}:${res.status}`);
            if (settled.filter((s) => s.endsWith(':429')).length === 6 || settled.length === 9) sixRefused();
            return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { detail?: string } };
          }),
      ),
    );

    // One lane for the account: one render running, two waiting, the other six refused at once.
    await refused;
    expect(settled.filter((s) => s.endsWith(':429'))).toHaveLength(6);

    const calm = await victim.client.post(`/orgs/${victim.orgId}/report-templates/preview`, {
      source: '# {{ namespace }}',
      format: 'markdown',
      namespace: 'ns-calm',
    });
    settled.push(`calm:${calm.status}`);
    expect(calm.status).toBe(200);
    expect(calm.body.content).toContain('# ns-calm');
    // The calm account's preview came back while the flooder's accepted renders still ran or waited.
    expect(settled.filter((s) => s.startsWith('f') && !s.endsWith(':429')).length).toBeLessThan(3);

    const results = await Promise.all(flood);
    expect(results.map((r) => r.status).sort()).toEqual([422, 422, 422, 429, 429, 429, 429, 429, 429]);
    for (const res of results.filter((r) => r.status === 429)) {
      expect(Number(res.retryAfter)).toBeGreaterThan(0);
      expect(res.body.detail).toMatch(/retry/i);
    }
  }, 60_000);
});
