import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, countResourceChanges, startTestServer, waitForJob, type TestServer } from '../helpers/test-server';

let fake: FakeProvider;
let server: TestServer;
beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});
beforeEach(() => fake.reset());

// Resources are shared by hash across namespaces, so each provider gets plans of its own:
// otherwise the second provider would find everything analysed and make no call.
const PROVIDERS = [
  {
    llm_backend: 'openai',
    model: 'gpt-4o-mini',
    api_key: 'sk-test-openai',
    small: 'tfplan-json/terraform-showjson-basic-delete.json',
    larger: 'tfplan-json/checkov-aws-github-oidc-iam-modules.json',
    providerRules: /^## TF-AWS-/m,
  },
  {
    llm_backend: 'anthropic',
    model: 'claude-haiku-4-5',
    api_key: 'sk-ant-test',
    small: 'tfplan-json/terraform-showjson-drift.json',
    larger: 'tfplan-json/checkov-gcp-modules.json',
    providerRules: /^## TF-GCP-/m,
  },
  {
    llm_backend: 'ollama',
    model: 'llama3.1:8b',
    api_key: null,
    small: 'tfplan-json/infracost-setup-terraform-wrapper-noise.json',
    larger: 'tfplan-json/infracost-azure-firewall.json',
    providerRules: /^## TF-AZURE-/m,
  },
] as const;

const SMALL_PLAN = PROVIDERS[0].small; // 2 resource changes
const MIXED_PLAN = 'tfplan-json/tfcompliance-aws-deletes-drift-issue522.json'; // 15 resource changes

function analyze(namespace: string, provider: { llm_backend: string; model: string; api_key: string | null }, plan: string) {
  const { llm_backend, model, api_key } = provider;
  return server.api(`/terraform/${namespace}/analyze`, {
    method: 'POST',
    json: { llm_backend, model, api_key, raw_input: corpusFile(plan).toString('utf8') },
  });
}

describe.each(PROVIDERS)('server-side analysis with $llm_backend', (provider) => {
  it('runs a small plan inline (sync) and returns the report', async () => {
    const ns = `sync-${provider.llm_backend}`;
    const res = await analyze(ns, provider, provider.small);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { job_id: string; report_markdown: string; resource_count: number; quota_exceeded: boolean };
    expect(body.resource_count).toBe(2);
    expect(body.quota_exceeded).toBe(false);
    expect(fake.requests.filter((r) => r.backend === provider.llm_backend)).toHaveLength(2);
    const job = (await (await server.api(`/jobs/${body.job_id}`)).json()) as Record<string, unknown>;
    expect(job).toMatchObject({ status: 'done', mode: 'sync', processed_count: 2, total_count: 2, namespace: ns });
    // Every finding the fake returned is in the report.
    const resources = (await (await server.api(`/${ns}/resources`)).json()) as { analysis: { findings: { rule_id: string; resource_address: string }[] } }[];
    for (const r of resources) {
      for (const f of r.analysis.findings) {
        expect(body.report_markdown).toContain(f.rule_id);
        expect(body.report_markdown).toContain(f.resource_address);
      }
    }
    if (provider.api_key) expect(JSON.stringify(fake.requests.at(-1)!.headers)).toContain(provider.api_key);
  });

  it('queues a larger plan (async) and the polled job reaches done with full progress', async () => {
    const ns = `async-${provider.llm_backend}`;
    const res = await analyze(ns, provider, provider.larger);
    expect(res.status).toBe(202);
    const { job_id, status } = (await res.json()) as { job_id: string; status: string };
    expect(status).toBe('queued');
    const job = await waitForJob(server, job_id);
    const expected = countResourceChanges(corpusFile(provider.larger));
    const calls = fake.requests.filter((r) => r.backend === provider.llm_backend);
    expect(calls).toHaveLength(expected);
    // Units of a cloud's provider are analysed with that cloud's rules on top of the general ones.
    expect(calls.some((r) => provider.providerRules.test(r.system))).toBe(true);
    expect(calls.every((r) => /^## TF-GEN-/m.test(r.system))).toBe(true);
    expect(job).toMatchObject({ status: 'done', mode: 'async', error: null });
    expect(job.processed_count).toBe(expected);
    expect(job.total_count).toBe(expected);
    expect(job.current_resource).toMatchObject({ hash: expect.any(String), resource_address: expect.any(String), type: expect.any(String) });
    const report = (await (await server.api(`/${ns}/report`)).json()) as { markdown_report: string };
    const resources = (await (await server.api(`/${ns}/resources`)).json()) as { analysis: { findings: { resource_address: string }[] } | null }[];
    expect(resources.every((r) => r.analysis !== null)).toBe(true);
    for (const r of resources) expect(report.markdown_report).toContain(r.analysis!.findings[0].resource_address);
  });
});

describe('re-analysis', () => {
  it('re-analysing an unchanged plan in a new namespace makes no LLM call', async () => {
    const provider = PROVIDERS[0];
    expect((await analyze('reuse-1', provider, SMALL_PLAN)).status).toBe(200);
    const calls = fake.requests.length;
    const again = await analyze('reuse-2', provider, SMALL_PLAN);
    expect(again.status).toBe(200);
    expect(fake.requests.length).toBe(calls);
    const body = (await again.json()) as { report_markdown: string; job_id: string };
    const job = (await (await server.api(`/jobs/${body.job_id}`)).json()) as { processed_count: number };
    expect(job.processed_count).toBe(2);
  });

  it('server and client analyses mix in one namespace: analysed units are skipped', async () => {
    const plan = corpusFile(MIXED_PLAN);
    await server.api('/terraform/mixed/ingest', { method: 'POST', body: new Uint8Array(plan) });
    const next = (await (await server.api('/mixed/resource/next')).json()) as { hash: string; value: { name: string; body: string } };
    const ruleId = /^## ([A-Z0-9-]+):/m.exec(await (await server.api('/terraform/rules')).text())![1];
    await server.api(`/resource/${next.hash}/analysis`, {
      method: 'PUT',
      json: {
        summary: 's',
        findings: [
          {
            title: 't',
            severity: 'LOW',
            rule_id: ruleId,
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 'n',
            confidence: 'HIGH',
            evidence: [],
            resource_address: next.value.name,
            tags: [],
          },
        ],
      },
    });
    const before = fake.requests.length;
    const res = await analyze('mixed', PROVIDERS[0], MIXED_PLAN);
    const job = await waitForJob(server, ((await res.json()) as { job_id: string }).job_id);
    expect(job.status).toBe('done');
    const calledFor = fake.requests.slice(before).map((r) => r.user);
    expect(calledFor.some((u) => u.includes(next.value.body.split('\n')[0]))).toBe(false);
    expect(fake.requests.length - before).toBe(countResourceChanges(plan) - 1);
  });
});

describe('credentials and catalogue', () => {
  it('uses the stored credential when no api_key is given, and never returns it', async () => {
    const stored = await server.api('/orgs/default/llm-credentials', { method: 'POST', json: { provider: 'openai', api_key: 'sk-stored-secret' } });
    expect(stored.status).toBe(201);
    expect(JSON.stringify(await stored.json())).not.toContain('sk-stored-secret');
    const list = await server.api('/orgs/default/llm-credentials');
    const text = await list.text();
    expect(text).toContain('openai');
    expect(text).not.toContain('sk-stored-secret');
    const fresh = corpusFile('tfplan-json/checkov-aws-replace-create-delete.json').toString(); // not analysed before
    const res = await server.api('/terraform/stored-key/analyze', { method: 'POST', json: { llm_backend: 'openai', model: 'gpt-4o', raw_input: fresh } });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-stored-secret');
    expect((await server.api('/orgs/default/llm-credentials/openai', { method: 'DELETE' })).status).toBe(200);
    expect((await server.api('/orgs/default/llm-credentials/openai', { method: 'DELETE' })).status).toBe(404);
    const noKey = await server.api('/terraform/no-key/analyze', {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o', raw_input: corpusFile(SMALL_PLAN).toString() },
    });
    expect(noKey.status).toBe(400);
  });

  it('answers 400 for a model off the catalogue and lists the 9 curated models', async () => {
    const res = await server.api('/terraform/bad-model/analyze', {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-2', api_key: 'k', raw_input: '{}' },
    });
    expect(res.status).toBe(400);
    const models = (await (await server.api('/models')).json()) as { models: { llm_backend: string }[] };
    expect(models.models).toHaveLength(9);
    for (const backend of ['openai', 'anthropic', 'ollama']) expect(models.models.filter((m) => m.llm_backend === backend)).toHaveLength(3);
  });

  it('keeps the stored key encrypted at rest', async () => {
    await server.api('/orgs/default/llm-credentials', { method: 'POST', json: { provider: 'anthropic', api_key: 'sk-ant-at-rest' } });
    const rows = await server.services.engine.stores.store.collection('llm_credentials').find({});
    expect(JSON.stringify(rows)).not.toContain('sk-ant-at-rest');
    await server.api('/orgs/default/llm-credentials/anthropic', { method: 'DELETE' });
  });
});
