import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runJob } from '../../engine/src/analysis/run-job';
import type { EngineContext } from '../../engine/src/context/engine-context';
import type { Logger } from '../../engine/src/core/logger';
import type { ResourceStore } from '../../engine/src/ingest/resource-store';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, startTestServer, waitForJob, type TestServer } from '../helpers/test-server';

/**
 * Issue 14: a job has at most one retry in flight (two racing retries: one 202, one 409, each
 * unit sent to the provider once); a crash between metering a unit and saving its analysis
 * does not bill the unit twice on resume; lifecycle log lines; rule_type and span conformance.
 */
const GCP_PLAN = corpusFile('tfplan-json/checkov-gcp-modules.json').toString(); // 11 units
const AWS_PLAN = corpusFile('tfplan-json/checkov-aws-github-oidc-iam-modules.json').toString(); // 9 units
const OPENAI = { llm_backend: 'openai', model: 'gpt-4o-mini' };

let fake: FakeProvider;
let server: TestServer | null = null;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterEach(async () => {
  await server?.close();
  server = null;
  fake.reset();
});
afterAll(async () => {
  await fake.close();
});

/** A Logger keeping every info line as `{msg, ...fields}`. */
function capturingLogger(): Logger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const keep = (obj: object | string, msg?: string) => {
    lines.push(typeof obj === 'string' ? { msg: obj } : { ...obj, msg });
  };
  return { lines, info: keep, warn() {}, error() {}, debug() {} };
}

/** Every provider request's user text: the unit's prompt, one per unit analysed. */
const promptsSent = () => fake.requests.map((r) => r.user);

async function analysedCount(srv: TestServer, namespace: string): Promise<{ analysed: number; total: number }> {
  const resources = (await (await srv.api(`/${namespace}/resources`)).json()) as { analysis: unknown }[];
  return { analysed: resources.filter((r) => r.analysis !== null).length, total: resources.length };
}

describe('retrying a job', () => {
  it('two concurrent retries of a cancelled job: exactly one 202, one 409; each unit reaches the provider once', async () => {
    const log = capturingLogger();
    server = await startTestServer({
      fake,
      adjust: (config) => {
        config.analysis.max_concurrent_units = 2;
      },
      start: { log },
    });
    fake.setLatency(120);
    const started = await server.api('/terraform/retry-race/analyze', { method: 'POST', json: { ...OPENAI, api_key: 'sk-inline', raw_input: GCP_PLAN } });
    expect(started.status).toBe(202);
    const { job_id: jobId } = (await started.json()) as { job_id: string };
    for (let i = 0; i < 400; i += 1) {
      const job = (await (await server.api(`/jobs/${jobId}`)).json()) as { processed_count: number };
      if (job.processed_count >= 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await server.api(`/jobs/${jobId}/cancel`, { method: 'POST' })).status).toBe(200);

    // The attack: the same retry twice at once, while the cancelled run still finishes its units in flight.
    const retry = () => server!.api(`/jobs/${jobId}/retry`, { method: 'POST', json: { api_key: 'sk-inline' } });
    const answers = await Promise.all([retry(), retry()]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    const accepted = answers.find((r) => r.status === 202)!;
    const refused = answers.find((r) => r.status === 409)!;
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/retry/i);
    const { job_id: retryId } = (await accepted.json()) as { job_id: string };

    fake.setLatency(0);
    expect((await waitForJob(server, retryId)).status).toBe('done');
    await server.services.runner.idle();
    const { analysed, total } = await analysedCount(server, 'retry-race');
    expect(analysed).toBe(total);
    const prompts = promptsSent();
    expect(prompts).toHaveLength(total);
    expect(new Set(prompts).size).toBe(total);
    const jobs = (await (await server.api('/jobs?limit=200')).json()) as { jobs: { retry_of: string | null }[] };
    expect(jobs.jobs.filter((j) => j.retry_of === jobId)).toHaveLength(1);
    // A retry already in flight or finished leaves nothing to do: still no second retry.
    expect((await retry()).status).toBe(409);

    // Lifecycle lines from the runner, through the injected logger.
    const line = (msg: string, id: string) => log.lines.find((l) => l.msg === msg && l.job_id === id);
    for (const [msg, id] of [
      ['job queued', jobId],
      ['job started', jobId],
      ['job cancelled', jobId],
      ['job queued', retryId],
      ['job started', retryId],
      ['job finished', retryId],
    ]) {
      expect(line(msg, id), `${msg} ${id}`).toMatchObject({
        org_id: 'default',
        namespace: 'retry-race',
        resource_count: expect.any(Number),
        processed_count: expect.any(Number),
        total_count: expect.any(Number),
      });
    }
    expect(line('job finished', retryId)).toMatchObject({ status: 'done', retry_of: jobId });
  });
});

describe('metering across a crash', () => {
  it('a crash between metering a unit and saving its analysis does not bill the unit twice on resume', async () => {
    server = await startTestServer({
      fake,
      adjust: (config) => {
        config.analysis.max_concurrent_units = 1;
      },
      start: { pollIntervalMs: 3_600_000 }, // the runner claims only when the test says so
    });
    const engine = server.services.engine;
    const { stores } = engine;
    expect((await server.api('/orgs/default/llm-credentials', { method: 'POST', json: { provider: 'openai', api_key: 'sk-stored' } })).status).toBeLessThan(
      300,
    );
    const units = (await (await server.api('/terraform/crash/ingest', { method: 'POST', body: AWS_PLAN })).json()) as { hash: string }[];
    const hashes = [...new Set(units.map((u) => u.hash))];
    const job = await stores.jobs.create(
      {
        org_id: 'default',
        namespace: 'crash',
        analyzer: 'terraform',
        analyzers_used: [],
        detections: [],
        mode: 'async',
        status: 'running',
        trigger: 'api',
        external_ref: null,
        resource_count: hashes.length,
        total_count: hashes.length,
        ...OPENAI,
        rule_type: null,
        retry_of: null,
        hashes,
        key_source: 'stored',
      },
      engine.now().toISOString(),
    );
    const far = new Date(Date.now() + 3_600_000).toISOString();
    expect((await stores.jobs.unsafeClaimNext('runner-that-dies', engine.now().toISOString(), far))?.job_id).toBe(job.job_id);

    // The process "dies" right after metering the third unit, before its analysis is saved.
    let saves = 0;
    const dying = Object.create(stores.resources) as ResourceStore;
    dying.saveAnalysis = async (...args: Parameters<ResourceStore['saveAnalysis']>) => {
      saves += 1;
      if (saves === 3) throw new Error('kill -9');
      return stores.resources.saveAnalysis(...args);
    };
    const dyingCtx: EngineContext = { ...engine, stores: { ...stores, resources: dying } };
    const pricing = (await stores.models.get('openai', 'gpt-4o-mini'))!;
    await expect(
      runJob(dyingCtx, job, {
        provider: server.services.analysis.providerFor('openai', 'sk-stored'),
        pricing,
        settings: server.services.analysis.settings(),
      }),
    ).rejects.toThrow('kill -9');
    expect(await stores.llmCalls.forJob('default', job.job_id)).toHaveLength(3);

    // Its lease runs out; a runner resumes the job.
    await stores.jobs.unsafeRenewLease(job.job_id, 'runner-that-dies', '2000-01-01T00:00:00.000Z');
    await server.services.runner.idle();
    const done = await waitForJob(server, job.job_id);
    expect(done).toMatchObject({ status: 'done', processed_count: hashes.length });

    // The crashed unit went to the provider twice, but it is billed once.
    expect(fake.requests).toHaveLength(hashes.length + 1);
    const calls = await stores.llmCalls.forJob('default', job.job_id);
    expect(calls).toHaveLength(hashes.length);
    expect(new Set(calls.map((c) => c.resource_hash)).size).toBe(hashes.length);
    const usage = (await (await server.api('/orgs/default/usage')).json()) as { event_count: number; resource_count: number };
    expect(usage).toMatchObject({ event_count: hashes.length, resource_count: hashes.length });
  });
});

describe('conformance', () => {
  it('an unknown rule_type is refused with 422 {detail} before any work', async () => {
    server = await startTestServer({ fake });
    const res = await server.api('/terraform/bad-type/analyze', {
      method: 'POST',
      json: { ...OPENAI, api_key: 'sk-x', raw_input: AWS_PLAN, rule_type: 'nonsense' },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/rule_type 'nonsense'.*default/);
    expect(fake.requests).toHaveLength(0);
    expect(((await (await server.api('/jobs')).json()) as { total: number }).total).toBe(0);
    expect((await server.api('/bad-type/resources')).status).toBe(404); // nothing ingested

    expect((await server.api('/terraform/ok-type/ingest', { method: 'POST', body: AWS_PLAN })).status).toBe(201);
    const next = await server.api('/ok-type/resource/next?rule_type=nonsense');
    expect(next.status).toBe(422);
    expect(((await next.json()) as { detail: string }).detail).toMatch(/nonsense/);
    expect((await server.api('/ok-type/resource/next?rule_type=aws')).status).toBe(200);
  });

  it('ingest spans of async analysis carry the real resource_count and analyzers; analysis spans the resource type and address', async () => {
    server = await startTestServer({ fake });
    const analyze = (path: string) => server!.api(path, { method: 'POST', json: { ...OPENAI, api_key: 'sk-x', raw_input: GCP_PLAN } });
    const named = await analyze('/terraform/span-named/analyze');
    expect(named.status).toBe(202);
    const namedJob = await waitForJob(server, ((await named.json()) as { job_id: string }).job_id);
    const auto = await analyze('/span-auto/analyze/auto');
    expect(auto.status).toBe(202);
    await waitForJob(server, ((await auto.json()) as { job_id: string }).job_id);

    const ingestSpans = (await (await server.api('/metrics/spans?type=ingest')).json()) as { data: Record<string, unknown> }[];
    const byNamespace = (ns: string) => ingestSpans.find((s) => s.data.namespace === ns)?.data;
    expect(byNamespace('span-named')).toEqual({ namespace: 'span-named', analyzer: 'terraform', resource_count: namedJob.resource_count });
    expect(byNamespace('span-auto')).toEqual({ namespace: 'span-auto', analyzer: 'terraform', resource_count: namedJob.resource_count });

    const units = (await (await server.api('/terraform/span-put/ingest', { method: 'POST', body: AWS_PLAN })).json()) as {
      hash: string;
      type: string;
      name: string;
    }[];
    const put = await server.api(`/resource/${units[0].hash}/analysis`, {
      method: 'PUT',
      json: {
        summary: 'ok',
        findings: [
          {
            title: 't',
            severity: 'LOW',
            rule_id: 'TF-GEN-SECRET-PLAINTEXT',
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 's',
            confidence: 'LOW',
            evidence: [],
            resource_address: units[0].name,
            tags: [],
          },
        ],
      },
    });
    expect(put.status).toBe(200);
    const analysisSpans = (await (await server.api('/metrics/spans?type=analysis')).json()) as { data: Record<string, unknown> }[];
    expect(analysisSpans[0].data).toMatchObject({
      resource_type: units[0].type,
      resource_address: units[0].name,
      finding_count: 1,
      severity_counts: { LOW: 1 },
    });
  });
});
