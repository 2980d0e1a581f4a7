import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../engine/src/store/open-store';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, FakeClock, registerUser, startAuthServer, type Client } from '../helpers/identity';

const DAY = 86_400_000;
const dataDir = mkdtempSync(join(tmpdir(), 'pw-admin-'));
const clock = new FakeClock();
let server: TestServer;
let boot: Client;

beforeAll(async () => {
  server = await startAuthServer({ clock, overrides: { data_dir: dataDir, storage: { backend: 'sqlite' }, usage: { cloud: true, demo_analyses: 1 } } });
  boot = bootstrap(server);
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Rows mentioning `orgId` as their org_id, per table, read straight from the SQLite file (every table, none listed by hand). */
function rowsOfOrg(orgId: string | null): Record<string, number> {
  const db = new Database(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_planwarden_%'").all() as {
      name: string;
    }[];
    const out: Record<string, number> = {};
    for (const { name } of tables) {
      const cols = (db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[]).map((c) => c.name);
      if (!cols.includes('doc')) continue;
      const { n } = db.prepare(`SELECT count(*) AS n FROM "${name}" WHERE json_extract(doc, '$.org_id') = ?`).get(orgId) as { n: number };
      if (n > 0) out[name] = n;
    }
    return out;
  } finally {
    db.close();
  }
}

describe('plans', () => {
  it('sets the tier with a contract only on enterprise, and grants demo analyses', async () => {
    const { orgId } = await registerUser(server, 'plan-owner@example.com', { orgName: 'Plan Org' });
    expect((await boot.patch(`/admin/organizations/${orgId}/plan`, { plan_tier: 'paid', contract: { reference: 'x' } })).status).toBe(422);
    expect((await boot.patch('/admin/organizations/nope/plan', { plan_tier: 'paid' })).status).toBe(404);
    const ent = await boot.patch(`/admin/organizations/${orgId}/plan`, {
      plan_tier: 'enterprise',
      contract: { included_resources_per_month: 10, reference: 'C-1' },
    });
    expect(ent.status).toBe(200);
    expect(ent.body).toEqual({ org_id: orgId, plan_tier: 'enterprise', contract: { included_resources_per_month: 10, reference: 'C-1' } });
    const summary = (await boot.get(`/admin/organizations/${orgId}`)).body;
    expect(summary.plan_tier).toBe('enterprise');
    expect(summary.contract.reference).toBe('C-1');
    const free = await boot.patch(`/admin/organizations/${orgId}/plan`, { plan_tier: 'free', demo_analyses_used: 0 });
    expect(free.body.contract).toBeNull();
    const audit = (await boot.get(`/admin/organizations/${orgId}/audit?action=org.plan_update`)).body;
    expect(audit.events).toHaveLength(2); // the 422 and 404 changed nothing
  });

  it('a free org of a cloud deployment past its demo quota gets 402; a granted allowance lifts it', async () => {
    const stores = server.services.engine.stores;
    const base = {
      org_id: 'default',
      namespace: 'ns',
      analyzer: 'terraform',
      analyzers_used: [],
      detections: [],
      mode: 'sync' as const,
      status: 'done' as const,
      trigger: 'api',
      external_ref: null,
      resource_count: 1,
      total_count: 1,
      llm_backend: 'openai',
      model: 'gpt-4o',
      rule_type: null,
      retry_of: null,
      hashes: ['h'],
      key_source: 'inline' as const,
    };
    await stores.jobs.create(base, clock.now().toISOString());
    const analyze = () => boot.post('/terraform/ns-demo/analyze', { raw_input: '{}', llm_backend: 'openai', model: 'gpt-4o', api_key: 'sk-x' });
    expect((await analyze()).status).toBe(402);
    expect((await boot.patch('/admin/organizations/default/plan', { plan_tier: 'free', demo_analyses_used: 0 })).status).toBe(200);
    expect((await boot.get('/orgs/default/usage')).body.demo_analyses_used).toBe(0);
    expect((await analyze()).status).not.toBe(402);
  });
});

describe('offboarding', () => {
  it('deletes with a grace period, cancels, and purges every row of an org past its grace and nothing of another', async () => {
    const gone = await registerUser(server, 'gone-owner@example.com', { orgName: 'Gone Org' });
    const kept = await registerUser(server, 'kept-owner@example.com', { orgName: 'Kept Org' });
    for (const { client, orgId } of [gone, kept] as { client: Client; orgId: string }[]) {
      expect((await client.post(`/orgs/${orgId}/teams`, { name: 'Platform' })).status).toBe(201);
      expect((await client.post('/auth/keys', { name: 'ci', role: 'member' })).status).toBe(201);
    }
    expect((await boot.post(`/admin/organizations/${gone.orgId}/cancel-deletion`)).status).toBe(409);
    const del = await boot.delete(`/admin/organizations/${gone.orgId}`);
    expect(del.status).toBe(200);
    expect(del.body.pending_deletion_at).toBe(clock.now().toISOString());
    expect(del.body.purge_after).toBe(new Date(clock.current.getTime() + 30 * DAY).toISOString());
    expect((await boot.delete(`/admin/organizations/${gone.orgId}`)).status).toBe(409);
    expect((await gone.client.get(`/orgs/${gone.orgId}/teams`)).status).toBe(423);
    expect((await boot.post(`/admin/organizations/${gone.orgId}/cancel-deletion`)).body).toEqual({ org_id: gone.orgId, pending_deletion_at: null });
    expect((await boot.delete(`/admin/organizations/${gone.orgId}`)).status).toBe(200);

    clock.advance(30 * DAY - 1000); // just inside the grace period
    expect((await boot.post('/admin/organizations/purge-pending')).body.purged).toEqual([]);
    await server.services.engine.stores.spans.flush(); // buffered request spans land before the snapshot
    const before = rowsOfOrg(gone.orgId);
    expect(Object.keys(before).length).toBeGreaterThan(3);
    const keptBefore = rowsOfOrg(kept.orgId);

    clock.advance(2000); // just outside
    const purge = await boot.post('/admin/organizations/purge-pending');
    expect(purge.status).toBe(200);
    expect(purge.body.purged.map((p: { org_id: string }) => p.org_id)).toEqual([gone.orgId]);
    expect(rowsOfOrg(gone.orgId)).toEqual({});
    expect(rowsOfOrg(kept.orgId)).toEqual(keptBefore);
    expect((await boot.get(`/admin/organizations/${gone.orgId}`)).status).toBe(404);
  });
});

describe('/admin/models', () => {
  it('lists, adds, changes and removes catalogue rows; analysis follows at once', async () => {
    const all = (await boot.get('/admin/models')).body.models;
    expect(all.length).toBeGreaterThan(0);
    const row = { llm_backend: 'openai', model: 'gpt-test-1', input_price_per_1m_usd: 1, output_price_per_1m_usd: 2, enabled: false };
    expect((await boot.post('/admin/models', row)).status).toBe(201);
    expect((await boot.post('/admin/models', row)).status).toBe(409);
    expect((await boot.get('/admin/models?enabled=false')).body.models.map((m: { model: string }) => m.model)).toContain('gpt-test-1');
    expect((await boot.get('/models')).body.models.map((m: { model: string }) => m.model)).not.toContain('gpt-test-1');
    const patched = await boot.patch('/admin/models/openai/gpt-test-1', { enabled: true, output_price_per_1m_usd: 3 });
    expect(patched.body).toMatchObject({ enabled: true, input_price_per_1m_usd: 1, output_price_per_1m_usd: 3 });
    expect((await boot.patch('/admin/models/openai/none', { enabled: true })).status).toBe(404);
    expect((await boot.delete('/admin/models/openai/gpt-4o')).status).toBe(204);
    expect((await boot.delete('/admin/models/openai/gpt-4o')).status).toBe(404);
    const analyze = await boot.post('/terraform/ns-model/analyze', { raw_input: '{}', llm_backend: 'openai', model: 'gpt-4o', api_key: 'sk-x' });
    expect(analyze.status).toBe(400);
  });
});

describe('retention and jobs sweeps', () => {
  it('purges findings and redacts resources just outside their windows, gates by interval, force overrides', async () => {
    const col = (name: string) => server.services.engine.stores.store.collection<{ _id?: string; [k: string]: unknown }>(name);
    const at = (daysAgo: number) => new Date(clock.current.getTime() - daysAgo * DAY).toISOString();
    const finding = (id: string, severity: string, daysAgo: number) => ({
      org_id: 'default',
      resource_hash: id,
      rule_id: 'R1',
      severity,
      last_seen: at(daysAgo),
    });
    await col('findings').insertMany([
      finding('low-in', 'LOW', 179),
      finding('low-out', 'LOW', 181),
      finding('high-in', 'HIGH', 729),
      finding('high-out', 'CRITICAL', 731),
    ]);
    await col('resources').insertMany([
      { org_id: 'default', hash: 'r-in', value: { body: 'keep' }, created_at: at(89) },
      { org_id: 'default', hash: 'r-out', value: { body: 'secret' }, created_at: at(91) },
    ]);
    const first = await boot.post('/admin/retention/run?force=true');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ skipped: false, error: null, counts: { findings_purged: 2, resources_redacted: 1 } });
    expect((await col('findings').find({ rule_id: 'R1' })).map((f: any) => f.resource_hash).sort()).toEqual(['high-in', 'low-in']);
    expect(((await col('resources').findOne({ hash: 'r-out' })) as any).value.body).toBe('');
    expect(((await col('resources').findOne({ hash: 'r-in' })) as any).value.body).toBe('keep');

    const again = await boot.post('/admin/retention/run');
    expect(again.body).toEqual({ ...first.body, skipped: true });
    expect((await boot.get('/admin/retention/status')).body).toEqual(first.body);
    clock.advance(25 * 3_600_000);
    expect((await boot.post('/admin/retention/run')).body.skipped).toBe(false);
  });

  it('the jobs sweep fails stuck jobs, records its status and gates itself', async () => {
    expect((await boot.get('/admin/jobs/sweep-status')).body).toBeNull();
    const stores = server.services.engine.stores;
    await stores.jobs.create(
      {
        org_id: 'default',
        namespace: 'stuck',
        analyzer: 'terraform',
        analyzers_used: [],
        detections: [],
        mode: 'sync',
        status: 'running',
        trigger: 'api',
        external_ref: null,
        resource_count: 1,
        total_count: 1,
        llm_backend: 'openai',
        model: 'gpt-4o',
        rule_type: null,
        retry_of: null,
        hashes: ['h'],
        key_source: 'inline',
      },
      clock.now().toISOString(),
    );
    clock.advance(61 * 60_000);
    const run = await boot.post('/admin/jobs/sweep');
    expect(run.body).toMatchObject({ jobs_marked_failed: 1, skipped: false, error: null });
    expect((await boot.post('/admin/jobs/sweep')).body.skipped).toBe(true);
    expect((await boot.get('/admin/jobs/sweep-status')).body).toMatchObject({ jobs_marked_failed: 1, error: null });
  });
});

describe('cross-org views and storage', () => {
  it('answers usage, metrics and storage status', async () => {
    const usage = (await boot.get('/admin/usage')).body;
    expect(usage.period).toMatch(/^\d{4}-\d{2}$/);
    expect(usage.by_org.map((o: { org_id: string }) => o.org_id)).toContain('default');
    const metrics = await boot.get('/admin/metrics/summary?days=7');
    expect(metrics.body).toMatchObject({ period_days: 7 });
    expect((await boot.get('/admin/metrics/summary?days=0')).status).toBe(422);
    expect((await boot.get('/admin/storage')).body).toEqual({ active_backend: 'sqlite', active_database: null, last_prepared: null });
  });
});
