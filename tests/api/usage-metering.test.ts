import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmCallDoc } from '../../engine/src/usage/llm-call-store';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

/**
 * Usage documents against hand-computed figures for each plan tier, across a UTC month
 * boundary with a fake clock. There is no plan-tier endpoint: the tier and the enterprise
 * contract are set through the org store.
 */
let clock = new Date('2026-03-31T23:00:00.000Z');
let server: TestServer;
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({
    fake,
    overrides: { server: { host: '127.0.0.1', port: 0, sync_analysis_max_units: 100 }, analysis: { max_concurrent_units: 1 } },
    start: { now: () => clock },
  });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

const usage = async (orgId = 'default', headers?: Record<string, string>) => {
  const res = await server.api(`/orgs/${orgId}/usage`, { headers });
  expect(res.status).toBe(200);
  return res.json() as Promise<Record<string, unknown>>;
};

function call(createdAt: string, cost: number, error: string | null = null): Omit<LlmCallDoc, '_id' | 'org_id'> {
  return {
    job_id: 'job-x',
    resource_hash: `h-${Math.random()}`,
    llm_backend: 'openai',
    model: 'gpt-4o-mini',
    attempt: 1,
    input_tokens: 10,
    output_tokens: 5,
    cost_usd: cost,
    duration_ms: 1,
    error,
    created_at: createdAt,
  };
}

describe('usage document by plan tier', () => {
  it('free, paid and enterprise figures, then the reset at the month boundary', async () => {
    const { stores } = server.services.engine;
    const march = '2026-03-15T10:00:00.000Z';
    await stores.llmCalls.record('default', [
      call('2026-02-28T23:59:59.999Z', 9.99), // previous month: never counted
      call(march, 0.1),
      call(march, 0.25),
      call(march, 0.05),
      call(march, 0.02, 'rate limited'), // a failed attempt costs but meters no resource
      ...Array.from({ length: 1_200 }, () => call(march, 0.001)),
    ]);
    // Hand-computed: cost 0.10 + 0.25 + 0.05 + 0.02 + 1200 × 0.001 = 1.62; events 1204; resources 1203.
    const common = { period: '2026-03', total_cost_usd: 1.62, event_count: 1204, resource_count: 1203 };

    expect(await usage()).toEqual({
      ...common,
      budget_usd: null,
      remaining_usd: null,
      metered_cost_usd: null,
      included_resources_per_month: null,
      included_resources_remaining: null,
      overage_resources: 0,
      committed_amount_usd: null,
      contract_expired: false,
      demo_analyses_used: null,
      demo_analyses_remaining: null,
    });

    expect(await (await server.api('/orgs/default/quota', { method: 'PATCH', json: { monthly_budget_usd: 2 } })).json()).toEqual({ monthly_budget_usd: 2 });
    await stores.orgs.update('default', { plan_tier: 'paid' });
    // Paid: 1000 × 0.05 + 203 × 0.03 = 50 + 6.09 = 56.09.
    expect(await usage()).toMatchObject({
      ...common,
      budget_usd: 2,
      remaining_usd: 0.38,
      metered_cost_usd: 56.09,
      included_resources_per_month: null,
      overage_resources: 0,
      committed_amount_usd: null,
    });

    await stores.orgs.update('default', {
      plan_tier: 'enterprise',
      contract: { committed_amount_usd: 500, included_resources_per_month: 1000, expires_at: '2026-04-15T00:00:00.000Z' },
    });
    // Enterprise: 203 resources beyond the 1000 included, at the cheapest tier 0.01 = 2.03.
    expect(await usage()).toMatchObject({
      ...common,
      metered_cost_usd: 2.03,
      included_resources_per_month: 1000,
      included_resources_remaining: 0,
      overage_resources: 203,
      committed_amount_usd: 500,
      contract_expired: false,
    });

    clock = new Date('2026-04-01T00:00:00.000Z'); // UTC month boundary: usage resets, no rollover
    expect(await usage()).toMatchObject({
      period: '2026-04',
      total_cost_usd: 0,
      event_count: 0,
      resource_count: 0,
      budget_usd: 2,
      remaining_usd: 2,
      metered_cost_usd: 0,
      included_resources_per_month: 1000,
      included_resources_remaining: 1000,
      overage_resources: 0,
      contract_expired: false,
    });
    await stores.llmCalls.record(
      'default',
      Array.from({ length: 40 }, () => call('2026-04-10T00:00:00.000Z', 0.01)),
    );
    clock = new Date('2026-04-20T00:00:00.000Z');
    // Inside the commitment: 0.0; the contract ended on 2026-04-15.
    expect(await usage()).toMatchObject({
      total_cost_usd: 0.4,
      resource_count: 40,
      metered_cost_usd: 0,
      included_resources_remaining: 960,
      contract_expired: true,
    });

    await stores.orgs.update('default', { contract: { committed_amount_usd: 1000, included_resources_per_month: null, expires_at: null } });
    expect(await usage()).toMatchObject({
      metered_cost_usd: 0,
      included_resources_per_month: null,
      included_resources_remaining: null,
      overage_resources: 0,
      committed_amount_usd: 1000,
      contract_expired: false,
    });

    await stores.orgs.update('default', { plan_tier: 'paid', contract: null });
    expect(await usage()).toMatchObject({ metered_cost_usd: 2, committed_amount_usd: null }); // 40 × 0.05
    await stores.orgs.update('default', { plan_tier: 'free' });
    await server.api('/orgs/default/quota', { method: 'PATCH', json: { monthly_budget_usd: null } });
  });
});

describe('spend cap', () => {
  const analyze = (ns: string, plan: string) =>
    server.api(`/terraform/${ns}/analyze`, {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test', raw_input: corpusFile(`tfplan-json/${plan}.json`).toString() },
    });

  it('a cap reached mid-run ends the job done with quota_exceeded and a partial report; then 402 until the month turns', async () => {
    clock = new Date('2026-05-31T23:50:00.000Z');
    await server.api('/orgs/default/quota', { method: 'PATCH', json: { monthly_budget_usd: 0.000001 } });
    const before = fake.requests.length;
    const res = await analyze('cap-a', 'terraform-showjson-basic-delete'); // 2 units, one at a time
    expect(res.status).toBe(200);
    const body = (await res.json()) as { job_id: string; quota_exceeded: boolean; report_markdown: string };
    expect(body.quota_exceeded).toBe(true);
    expect(fake.requests.length - before).toBe(1);
    const job = (await (await server.api(`/jobs/${body.job_id}`)).json()) as Record<string, unknown>;
    expect(job).toMatchObject({ status: 'done', quota_exceeded: true, processed_count: 1 });
    const calls = await server.services.engine.stores.llmCalls.forJob('default', body.job_id);
    const doc = await usage();
    expect(doc).toMatchObject({ period: '2026-05', event_count: 1, resource_count: 1, budget_usd: 0.000001, remaining_usd: 0 });
    expect(doc.total_cost_usd).toBeCloseTo(calls[0].cost_usd, 6);
    expect(calls[0].cost_usd).toBeGreaterThan(0.000001);

    const refused = await analyze('cap-b', 'terraform-showjson-drift');
    expect(refused.status).toBe(402);
    expect(fake.requests.length - before).toBe(1);
    expect((await server.api('/cap-b/resources')).status).toBe(404); // nothing was ingested
    // A checks-only analysis makes no model call: the spent cap neither refuses nor stops it.
    const checks = await server.api('/terraform/cap-checks/analyze', {
      method: 'POST',
      json: { raw_input: corpusFile('tfplan-json/terraform-showjson-drift.json').toString() },
    });
    expect(checks.status).toBe(200);
    const checked = (await (await server.api(`/jobs/${((await checks.json()) as { job_id: string }).job_id}`)).json()) as Record<string, unknown>;
    expect(checked).toMatchObject({ status: 'done', quota_exceeded: false, processed_count: checked.total_count });
    expect(checked.total_count).toBeGreaterThan(0);
    expect(fake.requests.length - before).toBe(1);

    clock = new Date('2026-06-01T00:00:00.000Z');
    const resumed = await analyze('cap-c', 'terraform-showjson-basic-delete');
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ quota_exceeded: false });
    expect(fake.requests.length - before).toBe(2); // the unit analysed in May is skipped
    expect(await (await server.api('/orgs/default/quota', { method: 'PATCH', json: { monthly_budget_usd: null } })).json()).toEqual({
      monthly_budget_usd: null,
    });
    expect((await analyze('cap-d', 'terraform-showjson-drift')).status).toBe(200);
  });

  it('roles, tenancy and validation', async () => {
    expect((await server.api('/orgs/default/usage', { headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    const viewer = await roleHeaders(server, 'viewer');
    const member = await roleHeaders(server, 'member');
    expect((await server.api('/orgs/default/usage', { headers: viewer })).status).toBe(200);
    expect((await server.api('/orgs/default/quota', { method: 'PATCH', headers: viewer, json: { monthly_budget_usd: 5 } })).status).toBe(403);
    expect((await server.api('/orgs/default/quota', { method: 'PATCH', headers: member, json: { monthly_budget_usd: 5 } })).status).toBe(403);
    const other = await otherOrg(server);
    expect((await server.api('/orgs/default/usage', { headers: other.headers })).status).toBe(404);
    expect(await usage(other.orgId, other.headers)).toMatchObject({ event_count: 0, total_cost_usd: 0 });
    for (const body of [{}, { monthly_budget_usd: -1 }, { monthly_budget_usd: '5' }, { monthly_budget_usd: 5, extra: true }]) {
      expect((await server.api('/orgs/default/quota', { method: 'PATCH', json: body })).status).toBe(422);
    }
  });
});

describe('cloud demo quota and background runs', () => {
  let cloud: TestServer;
  beforeAll(async () => {
    cloud = await startTestServer({
      fake,
      overrides: {
        usage: { cloud: true, demo_analyses: 2 },
        server: { host: '127.0.0.1', port: 0, sync_analysis_max_units: 0 },
        analysis: { max_concurrent_units: 1 },
      },
      start: { now: () => new Date('2026-07-01T10:00:00.000Z') },
    });
  });
  afterAll(async () => {
    await cloud.close();
  });

  const analyze = (ns: string, plan: string) =>
    cloud.api(`/terraform/${ns}/analyze`, {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test', raw_input: corpusFile(`tfplan-json/${plan}.json`).toString() },
    });

  it('a background job stops at the cap with quota_exceeded; a free cloud org gets its demo analyses, then 402', async () => {
    const { waitForJob } = await import('../helpers/test-server');
    expect(await (await cloud.api('/orgs/default/usage')).json()).toMatchObject({ demo_analyses_used: 0, demo_analyses_remaining: 2, metered_cost_usd: null });
    await cloud.api('/orgs/default/quota', { method: 'PATCH', json: { monthly_budget_usd: 0.000001 } });
    const queued = await analyze('bg-a', 'checkov-gcp-modules'); // 11 units, async
    expect(queued.status).toBe(202);
    const job = await waitForJob(cloud, ((await queued.json()) as { job_id: string }).job_id);
    expect(job).toMatchObject({ status: 'done', quota_exceeded: true, processed_count: 1 });
    const resources = (await (await cloud.api('/bg-a/resources')).json()) as { analysis: unknown }[];
    expect(resources.filter((r) => r.analysis !== null)).toHaveLength(1); // the partial result stays readable
    expect(resources).toHaveLength(11);
    // The namespace's report, read later, still says the run stopped at the monthly cap.
    const partial = await (await cloud.api('/bg-a/report?raw=true')).text();
    expect(partial).toMatch(/partial|cap|quota/i);
    expect(partial).toContain(job.job_id);
    expect((await analyze('bg-b', 'checkov-gcp-modules')).status).toBe(402);

    await cloud.api('/orgs/default/quota', { method: 'PATCH', json: { monthly_budget_usd: null } });
    expect(await (await cloud.api('/orgs/default/usage')).json()).toMatchObject({ demo_analyses_used: 1, demo_analyses_remaining: 1 });
    expect((await analyze('bg-c', 'terraform-showjson-basic-delete')).status).toBe(202);
    expect(await (await cloud.api('/orgs/default/usage')).json()).toMatchObject({ demo_analyses_used: 2, demo_analyses_remaining: 0 });
    expect((await analyze('bg-d', 'terraform-showjson-drift')).status).toBe(402);
    await cloud.services.engine.stores.orgs.update('default', { plan_tier: 'paid' });
    expect(await (await cloud.api('/orgs/default/usage')).json()).toMatchObject({ demo_analyses_used: null, demo_analyses_remaining: null });
    expect((await analyze('bg-e', 'terraform-showjson-drift')).status).toBe(202);
  });
});
