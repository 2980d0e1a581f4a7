import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, countResourceChanges, startTestServer, waitForJob, type TestServer } from '../helpers/test-server';

const SMALL_PLAN = corpusFile('tfplan-json/terraform-showjson-basic-delete.json').toString(); // 2 units
const LARGER_PLAN = corpusFile('tfplan-json/checkov-aws-github-oidc-iam-modules.json').toString(); // 9 units
const OTHER_PLAN = corpusFile('tfplan-json/infracost-azure-firewall.json').toString(); // 11 units, none shared with LARGER_PLAN
const OPENAI = { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test' };

// A fresh server (memory storage) per test: resources are shared by content hash, so a plan
// analysed by one test would be skipped by the next.
let fake: FakeProvider;
let server: TestServer;
beforeAll(async () => {
  fake = await startFakeProvider({ slowMs: 1500 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  fake.reset();
  server = await startTestServer({
    fake,
    adjust: (config) => {
      config.analysis.llm_timeout_seconds = 0.4;
      config.analysis.llm_max_attempts = 3;
      config.analysis.max_concurrent_units = 1;
    },
  });
});
afterEach(async () => {
  await server.close();
});

const analyze = (ns: string, raw: string, extra: Record<string, unknown> = {}) =>
  server.api(`/terraform/${ns}/analyze`, { method: 'POST', json: { ...OPENAI, raw_input: raw, ...extra } });

async function jobOf(res: Response) {
  return ((await res.json()) as { job_id: string }).job_id;
}

describe('provider failures', () => {
  it('retries 429 and 500 answers, then succeeds', async () => {
    fake.script([
      { status: 429, message: 'Rate limit reached' },
      { status: 500, message: 'boom' },
    ]);
    const res = await analyze('retry-ok', SMALL_PLAN);
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(4);
    const job = (await (await server.api(`/jobs/${await jobOf(res)}`)).json()) as { status: string };
    expect(job.status).toBe('done');
  });

  it('garbage output fails the unit after its attempts: sync answers 502 with the job id', async () => {
    fake.script(['malformed', 'malformed', 'malformed']);
    const res = await analyze('garbage-sync', SMALL_PLAN);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { detail: string; job_id: string };
    expect(body.job_id).toEqual(expect.any(String));
    expect(body.detail.length).toBeGreaterThan(0);
    const job = (await (await server.api(`/jobs/${body.job_id}`)).json()) as { status: string; error: string; mode: string };
    expect(job).toMatchObject({ status: 'failed', mode: 'sync' });
    expect(job.error).toBe(body.detail);
    expect(fake.requests).toHaveLength(3);
  });

  it("a provider error fails an async job with the provider's own message", async () => {
    fake.script([
      { status: 500, message: 'upstream melted' },
      { status: 500, message: 'upstream melted' },
      { status: 500, message: 'upstream melted' },
    ]);
    const job = await waitForJob(server, await jobOf(await analyze('provider-async', LARGER_PLAN)));
    expect(job.status).toBe('failed');
    expect(job.error).toContain('upstream melted');
  });

  it('output truncated at llm_max_output_tokens counts as a failure (502 on the sync path)', async () => {
    fake.script(['truncated', 'truncated', 'truncated']);
    const res = await analyze('truncated', SMALL_PLAN);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/trunc|max|length|token/i);
    // a single truncation is retried
    fake.script(['truncated']);
    expect((await analyze('truncated-once', SMALL_PLAN)).status).toBe(200);
  });

  it('a call past llm_timeout_seconds is abandoned and retried', async () => {
    fake.script(['slow']);
    const res = await analyze('timeout-once', SMALL_PLAN);
    expect(res.status).toBe(200);
    expect(fake.requests.length).toBe(3);
  });

  it("a non-retryable 401 fails at once with the provider's message", async () => {
    fake.script([{ status: 401, message: 'Incorrect API key provided' }]);
    const res = await analyze('unauthorized', SMALL_PLAN);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toContain('Incorrect API key provided');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('cancel and retry', () => {
  it('cancels a running job; the report covers what was analysed; retry analyses only the rest', async () => {
    fake.setLatency(150);
    const jobId = await jobOf(await analyze('cancel-me', LARGER_PLAN));
    let job: Record<string, any> = {};
    for (let i = 0; i < 400; i += 1) {
      job = (await (await server.api(`/jobs/${jobId}`)).json()) as Record<string, any>;
      if (job.processed_count >= 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cancel = await server.api(`/jobs/${jobId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toEqual({ job_id: jobId, status: 'cancelled', was: 'running' });
    await server.services.runner.idle();
    job = (await (await server.api(`/jobs/${jobId}`)).json()) as Record<string, any>;
    expect(job.status).toBe('cancelled');
    const total = countResourceChanges(Buffer.from(LARGER_PLAN));
    expect(job.processed_count).toBeLessThan(total);
    const analysedBefore = ((await (await server.api('/cancel-me/resources')).json()) as { analysis: unknown }[]).filter((r) => r.analysis).length;
    expect(analysedBefore).toBe(job.processed_count);
    const report = await server.api('/cancel-me/report');
    expect(report.status).toBe(200);

    expect((await server.api(`/jobs/${jobId}/cancel`, { method: 'POST' })).status).toBe(409);
    fake.setLatency(0);
    const calls = fake.requests.length;
    const retry = await server.api(`/jobs/${jobId}/retry`, { method: 'POST', json: { api_key: 'sk-test' } });
    expect(retry.status).toBe(202);
    const retried = (await retry.json()) as { job_id: string; status: string; retry_of: string };
    expect(retried).toMatchObject({ status: 'queued', retry_of: jobId });
    const done = await waitForJob(server, retried.job_id);
    expect(done.status).toBe('done');
    expect(done.total_count).toBe(total - analysedBefore);
    expect(done.processed_count).toBe(total - analysedBefore);
    expect(fake.requests.length - calls).toBe(total - analysedBefore);
    const original = (await (await server.api(`/jobs/${jobId}`)).json()) as { status: string };
    expect(original.status).toBe('cancelled');
  });

  it('retries a failed job over its unanalysed units only', async () => {
    server.config.analysis.llm_max_attempts = 1;
    {
      fake.script(['valid', 'valid', 'malformed']);
      const jobId = await jobOf(await analyze('fail-then-retry', OTHER_PLAN));
      const failed = await waitForJob(server, jobId);
      expect(failed.status).toBe('failed');
      expect(failed.processed_count).toBe(2);
      const retry = await server.api(`/jobs/${jobId}/retry`, { method: 'POST', json: { api_key: 'sk-test' } });
      expect(retry.status).toBe(202);
      const done = await waitForJob(server, ((await retry.json()) as { job_id: string }).job_id);
      const total = countResourceChanges(Buffer.from(OTHER_PLAN));
      expect(done).toMatchObject({ status: 'done', processed_count: total - 2, total_count: total - 2 });
      expect((await server.api(`/jobs/${done.job_id}/retry`, { method: 'POST', json: {} })).status).toBe(409);
    }
  });

  it('answers 409 to cancelling a sync job, 404 to unknown jobs, and lists jobs newest first', async () => {
    const sync = await jobOf(await analyze('sync-cancel', SMALL_PLAN));
    expect((await server.api(`/jobs/${sync}/cancel`, { method: 'POST' })).status).toBe(409);
    expect((await server.api('/jobs/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await server.api('/jobs/00000000-0000-0000-0000-000000000000/retry', { method: 'POST', json: {} })).status).toBe(404);
    const list = (await (await server.api('/jobs?limit=200')).json()) as { jobs: { job_id: string; created_at: string }[]; total: number };
    expect(list.total).toBeGreaterThanOrEqual(list.jobs.length);
    expect(list.jobs[0]).not.toHaveProperty('processed_count');
    const times = list.jobs.map((j) => j.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await server.api('/jobs?status=done&limit=1')).status).toBe(200);
    expect((await server.api('/jobs?limit=500')).status).toBe(422);
    expect((await server.api('/jobs?status=weird')).status).toBe(400); // unknown filter value
  });
});

describe('request validation', () => {
  it('answers 413 over server.max_input_size_mb and 422 for bad bodies', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024 + 10);
    expect((await analyze('too-big', big)).status).toBe(413);
    expect((await server.api('/terraform/bad-body/analyze', { method: 'POST', json: { llm_backend: 'openai' } })).status).toBe(422);
    expect((await server.api('/terraform/bad-body/analyze', { method: 'POST', json: { ...OPENAI, llm_backend: 'gemini', raw_input: 'x' } })).status).toBe(422);
    expect((await analyze('empty', '   ')).status).toBe(422);
    expect((await server.api('/nope/ns/analyze', { method: 'POST', json: { ...OPENAI, raw_input: SMALL_PLAN } })).status).toBe(404);
    expect(fake.requests).toHaveLength(0);
  });
});
