import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, countResourceChanges, startTestServer, waitForJob, type TestServer } from '../helpers/test-server';
import { spawnServer } from '../helpers/server-process';

const PLAN = corpusFile('tfplan-json/checkov-aws-github-oidc-iam-modules.json').toString();

let fake: FakeProvider;
let dataDir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dataDir = mkdtempSync(join(tmpdir(), 'planwarden-restart-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function start(): Promise<TestServer> {
  return startTestServer({
    fake,
    overrides: { storage: { backend: 'sqlite' }, data_dir: dataDir },
    adjust: (config) => {
      config.analysis.max_concurrent_units = 1;
    },
  });
}

async function waitForProgress(server: TestServer, jobId: string, atLeast: number) {
  for (let i = 0; i < 500; i += 1) {
    const job = (await (await server.api(`/jobs/${jobId}`)).json()) as { processed_count: number };
    if (job.processed_count >= atLeast) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no progress');
}

describe('background jobs survive a server restart (sqlite)', () => {
  it('resumes a job with a stored credential; nothing analysed is lost or paid twice', async () => {
    fake.setLatency(100);
    let server = await start();
    await server.api('/orgs/default/llm-credentials', { method: 'POST', json: { provider: 'openai', api_key: 'sk-stored' } });
    const res = await server.api('/terraform/restart/analyze', { method: 'POST', json: { llm_backend: 'openai', model: 'gpt-4o-mini', raw_input: PLAN } });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    await waitForProgress(server, job_id, 2);
    await server.close();
    const callsBefore = fake.requests.length;
    const analysedBefore = callsBefore; // one valid call per analysed unit

    fake.setLatency(0);
    server = await start();
    try {
      const job = await waitForJob(server, job_id);
      const total = countResourceChanges(Buffer.from(PLAN));
      expect(job).toMatchObject({ status: 'done', processed_count: total, total_count: total });
      expect(fake.requests.length - callsBefore).toBe(total - analysedBefore);
      const resources = (await (await server.api('/restart/resources')).json()) as { analysis: unknown }[];
      expect(resources.every((r) => r.analysis !== null)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('fails a job whose inline api_key died with the process, and retry with a key finishes it', async () => {
    fake.setLatency(100);
    let server = await start();
    const plan = corpusFile('tfplan-json/checkov-gcp-modules.json').toString();
    const res = await server.api('/terraform/inline/analyze', {
      method: 'POST',
      json: { llm_backend: 'anthropic', model: 'claude-haiku-4-5', api_key: 'sk-inline', raw_input: plan },
    });
    const { job_id } = (await res.json()) as { job_id: string };
    await waitForProgress(server, job_id, 1);
    await server.close();
    fake.setLatency(0);
    server = await start();
    try {
      const job = await waitForJob(server, job_id);
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/api_key/);
      const retry = await server.api(`/jobs/${job_id}/retry`, { method: 'POST', json: { api_key: 'sk-inline' } });
      expect(retry.status).toBe(202);
      const done = await waitForJob(server, ((await retry.json()) as { job_id: string }).job_id);
      expect(done.status).toBe('done');
    } finally {
      await server.close();
    }
  });

  it('kill -9 mid-job: a new process resumes at once and every unit is billed exactly once', async () => {
    const killDir = mkdtempSync(join(tmpdir(), 'planwarden-kill-'));
    const plan = corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString();
    const env = { PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS: '4', PLANWARDEN_JOBS_LEASE_SECONDS: '3600' };
    fake.reset();
    fake.setLatency(150);
    let proc = await spawnServer({ dataDir: killDir, fake, env });
    try {
      await proc.api('/orgs/default/llm-credentials', { method: 'POST', json: { provider: 'openai', api_key: 'sk-stored' } });
      const res = await proc.api('/terraform/killed/analyze', { method: 'POST', json: { llm_backend: 'openai', model: 'gpt-4o-mini', raw_input: plan } });
      expect(res.status).toBe(202);
      const { job_id } = (await res.json()) as { job_id: string };
      for (let i = 0; i < 500; i += 1) {
        const job = (await (await proc.api(`/jobs/${job_id}`)).json()) as { processed_count: number };
        if (job.processed_count >= 3) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await proc.kill(); // no shutdown: the lease (an hour) stays with the dead process
      fake.setLatency(0);
      proc = await spawnServer({ dataDir: killDir, fake, env });
      let job: Record<string, any> = {};
      for (let i = 0; i < 1200 && !['done', 'failed'].includes(job.status); i += 1) {
        job = (await (await proc.api(`/jobs/${job_id}`)).json()) as Record<string, any>;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(job).toMatchObject({ status: 'done', processed_count: job.total_count });
      const usage = (await (await proc.api('/orgs/default/usage')).json()) as { event_count: number; resource_count: number };
      expect(usage).toMatchObject({ event_count: job.resource_count, resource_count: job.resource_count });
      expect(proc.logLines().some((l) => l.msg === 'job resumed' && l.job_id === job_id)).toBe(true);
    } finally {
      await proc.kill();
      rmSync(killDir, { recursive: true, force: true });
    }
  }, 180_000);
});
