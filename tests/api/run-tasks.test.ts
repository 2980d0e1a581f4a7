import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign, startFakeHcpTerraform, type FakeHcpTerraform } from '../fakes/hcp-terraform';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
let hcp: FakeHcpTerraform;
let fake: FakeProvider;
const CONFIG = '/orgs/default/integrations/run-task';
const ENDPOINT = '/run-tasks/default';
const KEY = 'hcp-run-task-hmac-key-1';
const PUBLIC_BASE = 'https://planwarden.example';

beforeAll(async () => {
  fake = await startFakeProvider();
  hcp = await startFakeHcpTerraform();
  // The fake HCP Terraform listens on loopback, which the egress policy refuses unless allowlisted.
  server = await startTestServer({
    fake,
    overrides: { server: { host: '127.0.0.1', port: 0, public_base_url: PUBLIC_BASE }, egress: { allowlist: ['127.0.0.1'] } },
  });
});
afterAll(async () => {
  await server.close();
  await hcp.close();
  await fake.close();
});

/** POSTs `body` to the run task endpoint, signed with `key` (or with the given header value). */
function deliver(body: Record<string, unknown>, signature: string | null = sign(KEY, JSON.stringify(body))) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['X-TFC-Task-Signature'] = signature;
  return server.api(ENDPOINT, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function configure(gate: string) {
  const res = await server.api(CONFIG, { method: 'PUT', json: { hmac_key: KEY, llm_backend: 'ollama', model: 'llama3.1:8b', gate_severity: gate } });
  expect(res.status).toBe(200);
}

describe('run task configuration', () => {
  it('PUT/GET/DELETE with a write-only HMAC key', async () => {
    expect((await server.api(CONFIG)).status).toBe(404);
    expect((await server.api(CONFIG, { method: 'PUT', json: { llm_backend: 'ollama', model: 'llama3.1:8b' } })).status).toBe(400);
    const put = await server.api(CONFIG, { method: 'PUT', json: { hmac_key: KEY, llm_backend: 'ollama', model: 'llama3.1:8b' } });
    expect(put.status).toBe(200);
    const text = await put.text();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toEqual({
      llm_backend: 'ollama',
      model: 'llama3.1:8b',
      gate_severity: 'HIGH',
      has_hmac_key: true,
      endpoint_path: '/api/v1/run-tasks/default',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(await server.services.engine.stores.store.collection('run_task_configs').find({}))).not.toContain(KEY);
    // Omitting the key keeps it.
    expect(
      await (await server.api(CONFIG, { method: 'PUT', json: { llm_backend: 'ollama', model: 'llama3.1:8b', gate_severity: 'CRITICAL' } })).json(),
    ).toMatchObject({ gate_severity: 'CRITICAL', has_hmac_key: true });
    expect((await server.api(CONFIG, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(CONFIG)).status).toBe(404);
    // Without a config the endpoint answers 404, signed or not.
    expect((await deliver(hcp.runTaskRequest('plan-none', 'tok'))).status).toBe(404);
  });

  it('admin only, own org only, validated body, credential and catalogue checked', async () => {
    const member = await roleHeaders(server, 'member');
    expect((await server.api(CONFIG, { method: 'PUT', headers: member, json: { hmac_key: KEY, llm_backend: 'ollama', model: 'llama3.1:8b' } })).status).toBe(
      403,
    );
    const other = await otherOrg(server);
    expect(
      (await server.api(`/orgs/${other.orgId}/integrations/run-task`, { method: 'PUT', json: { hmac_key: KEY, llm_backend: 'ollama', model: 'llama3.1:8b' } }))
        .status,
    ).toBe(404);
    for (const body of [
      {},
      { hmac_key: 'short', llm_backend: 'ollama', model: 'llama3.1:8b' },
      { hmac_key: KEY, llm_backend: 'nope', model: 'x' },
      { hmac_key: KEY, llm_backend: 'ollama', model: 'llama3.1:8b', gate_severity: 'BAD' },
    ]) {
      expect((await server.api(CONFIG, { method: 'PUT', json: body })).status).toBe(422);
    }
    expect((await server.api(CONFIG, { method: 'PUT', json: { hmac_key: KEY, llm_backend: 'ollama', model: 'not-on-catalogue' } })).status).toBe(400);
    // openai needs a stored credential: run-task analyses never see an inline key.
    expect((await server.api(CONFIG, { method: 'PUT', json: { hmac_key: KEY, llm_backend: 'openai', model: 'gpt-4o-mini' } })).status).toBe(400);
  });
});

describe('run task requests', () => {
  beforeAll(() => configure('HIGH'));

  it('refuses a missing or wrong signature with 401 and does no work', async () => {
    const before = hcp.requests.length;
    const body = hcp.runTaskRequest('plan-sig', 'tok-sig');
    expect((await deliver(body, null)).status).toBe(401);
    expect((await deliver(body, sign('another-key-entirely', JSON.stringify(body)))).status).toBe(401);
    expect((await deliver(body, 'not-hex')).status).toBe(401);
    // A signature over a different body (the attacker changed the plan URL) fails too.
    const tampered = { ...body, plan_json_api_url: 'http://127.0.0.1:1/elsewhere' };
    expect((await deliver(tampered, sign(KEY, JSON.stringify(body)))).status).toBe(401);
    expect(hcp.requests.length).toBe(before);
  });

  it('answers the verification request (access token test-token) with 200 and does nothing', async () => {
    const before = hcp.requests.length;
    const res = await deliver(hcp.runTaskRequest(null, 'test-token'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ detail: 'Run task verified' });
    expect(hcp.requests.length).toBe(before);
  });

  it('downloads the plan with the bearer token, analyses it and PATCHes failed for an open HIGH finding', async () => {
    hcp.addPlan('plan-fail', 'tok-fail', { json: corpusFile('tfplan-json/terraform-showjson-basic-delete.json').toString('utf8') });
    const body = hcp.runTaskRequest('plan-fail', 'tok-fail');
    const res = await deliver(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ detail: 'Run task accepted' });
    const callback = await hcp.nextCallback();
    expect(callback.path).toBe(`/api/v2/task-results/taskrs-${String(body.run_id)}/callback`);
    expect(callback.headers['content-type']).toBe('application/vnd.api+json');
    expect(callback.headers.authorization).toBe('Bearer tok-fail');
    const { type, attributes } = callback.body.data;
    expect(type).toBe('task-results');
    expect(attributes.status).toBe('failed');
    expect(attributes.message).toMatch(/2 open finding\(s\) at or above HIGH/);
    expect(attributes.message).toContain('HIGH 2');
    expect(attributes.url).toMatch(/^https:\/\/planwarden\.example\/api\/v1\/reports\/[A-Za-z0-9_-]{43}$/);
    expect(attributes.message).toContain(attributes.url);
    // The plan was fetched with the run's token (then through HCP's redirect to the download).
    const fetched = hcp.requests.filter((r) => r.path.includes('plan-fail'));
    expect(fetched.map((r) => r.path)).toEqual(['/api/v2/plans/plan-fail/json-output', '/archivist/plan-fail']);
    expect(fetched[0].authorization).toBe('Bearer tok-fail');
    // It ran as a server-side analysis job of the org, in the run's namespace.
    const ns = `tfc-networking-${String(body.run_id)}`;
    expect((await server.api(`/${ns}/resources`)).status).toBe(200);
    // The linked report opens.
    const token = attributes.url!.split('/').at(-1)!;
    expect((await server.api(`/reports/${token}`)).status).toBe(200);
  });

  it('PATCHes passed when no open finding reaches the gate severity', async () => {
    await configure('CRITICAL');
    hcp.addPlan('plan-pass', 'tok-pass', { json: corpusFile('tfplan-json/terraform-showjson-drift.json').toString('utf8') });
    expect((await deliver(hcp.runTaskRequest('plan-pass', 'tok-pass'))).status).toBe(200);
    const callback = await hcp.nextCallback();
    expect(callback.body.data.attributes.status).toBe('passed');
    expect(callback.body.data.attributes.message).toMatch(/No open finding at or above CRITICAL\. Open findings: CRITICAL 0, HIGH \d+/);
    await configure('HIGH');
  });

  it('PATCHes failed with a message when the plan download fails', async () => {
    hcp.addPlan('plan-500', 'tok-500', { status: 500 });
    expect((await deliver(hcp.runTaskRequest('plan-500', 'tok-500'))).status).toBe(200);
    const failed = await hcp.nextCallback();
    expect(failed.body.data.attributes).toEqual({ status: 'failed', message: expect.stringContaining('the plan download answered HTTP 500') });
    // A token HCP does not accept for that plan: the fake answers 401.
    hcp.addPlan('plan-tok', 'tok-right', { json: '{}' });
    expect((await deliver(hcp.runTaskRequest('plan-tok', 'tok-wrong'))).status).toBe(200);
    expect((await hcp.nextCallback()).body.data.attributes.message).toContain('HTTP 401');
  });

  it('a redirect to a refused address fails the task without any connection to it', async () => {
    hcp.addPlan('plan-meta', 'tok-meta', { location: 'http://169.254.169.254/latest/meta-data' });
    expect((await deliver(hcp.runTaskRequest('plan-meta', 'tok-meta'))).status).toBe(200);
    const callback = await hcp.nextCallback();
    expect(callback.body.data.attributes.status).toBe('failed');
    expect(callback.body.data.attributes.message).toContain('169.254.169.254 is a link-local (cloud metadata) address');
  });

  it('refuses a callback URL the egress policy refuses (422) and a malformed request', async () => {
    const body = hcp.runTaskRequest('plan-x', 'tok-x', { task_result_callback_url: 'http://10.0.0.1/callback' });
    const res = await deliver(body);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toContain('10.0.0.1 is a private (RFC 1918) address');
    expect((await deliver({ payload_version: 1 })).status).toBe(422);
    const raw = 'not json';
    expect((await server.api(ENDPOINT, { method: 'POST', headers: { 'X-TFC-Task-Signature': sign(KEY, raw) }, body: raw })).status).toBe(422);
  });

  it('a stage without a plan passes without downloading anything', async () => {
    expect((await deliver(hcp.runTaskRequest(null, 'tok-pre', { stage: 'pre_plan' }))).status).toBe(200);
    expect((await hcp.nextCallback()).body.data.attributes).toMatchObject({ status: 'passed', message: expect.stringContaining('pre_plan') });
  });
});
