import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnalysis } from '../../engine/src/analysis/analyze-service';
import type { JobStore } from '../../engine/src/analysis/job-store';
import { failAbandonedSyncJobs } from '../../engine/src/analysis/sync-lease';
import { DEFAULT_ORG_ID } from '../../engine/src/orgs/org-store';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { corpusFile, startTestServer } from '../helpers/test-server';

// Three resource changes: under server.sync_analysis_max_units, so the analysis runs inline.
const SMALL_PLAN = corpusFile('tfplan-json/checkov-aws-replace-create-delete.json').toString();

let fake: FakeProvider;
let dataDir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dataDir = mkdtempSync(join(tmpdir(), 'planwarden-sync-kill-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 1200; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function jobOf(proc: ServerProcess, namespace: string): Promise<Record<string, any> | undefined> {
  const { jobs } = (await (await proc.api('/jobs?limit=50')).json()) as { jobs: Record<string, any>[] };
  return jobs.find((job) => job.namespace === namespace);
}

describe('a sync analysis whose process was killed (sqlite)', () => {
  it('is failed at the next start, not left running, and its retry analyses the units', async () => {
    const env = { PLANWARDEN_JOBS_LEASE_SECONDS: '3600' };
    fake.reset();
    fake.setLatency(60_000); // the model never answers before the kill
    let proc = await spawnServer({ dataDir, fake, env });
    try {
      const request = proc
        .api('/terraform/sync-killed/analyze', {
          method: 'POST',
          json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-inline', raw_input: SMALL_PLAN },
        })
        .catch((error: unknown) => error);
      await until(async () => (fake.requests.length > 0 ? true : undefined), 'the first model call');
      const running = await jobOf(proc, 'sync-killed');
      expect(running).toMatchObject({ mode: 'sync', status: 'running' });
      await proc.kill(); // no shutdown: the request dies with the process
      expect(await request).toBeInstanceOf(Error);

      fake.setLatency(0);
      proc = await spawnServer({ dataDir, fake, env });
      const job = (await proc.api(`/jobs/${running!.job_id}`).then((r) => r.json())) as Record<string, any>;
      expect(job).toMatchObject({ job_id: running!.job_id, mode: 'sync', status: 'failed' });
      expect(job.error).toMatch(/stopped before it finished/);
      expect(job.finished_at).toEqual(expect.any(String));

      const retry = await proc.api(`/jobs/${job.job_id}/retry`, { method: 'POST', json: { api_key: 'sk-inline' } });
      expect(retry.status).toBe(202);
      const retryId = ((await retry.json()) as { job_id: string }).job_id;
      const done = await until(async () => {
        const current = (await (await proc.api(`/jobs/${retryId}`)).json()) as Record<string, any>;
        return ['done', 'failed'].includes(current.status) ? current : undefined;
      }, 'the retry');
      expect(done).toMatchObject({ status: 'done', retry_of: job.job_id, processed_count: job.total_count });
    } finally {
      await proc.kill();
    }
  }, 180_000);
});

describe('a sync analysis whose process died right after creating its job', () => {
  it('is created holding its lease, so the next start fails it rather than the stuck-job sweep', async () => {
    const server = await startTestServer();
    try {
      const { engine, analysis } = server.services;
      // The process "dies" once the job is written: nothing after JobStore.create runs.
      const real = engine.stores.jobs;
      const dying = new Proxy(real, {
        get(target, key) {
          if (key === 'create')
            return async (...args: Parameters<JobStore['create']>) => {
              await target.create(...args);
              throw new Error('process died');
            };
          const value = Reflect.get(target, key) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const lease = { owner: 'runner:gone-host:999999:lost', seconds: 3600 };
      const deps = { ...analysis, ctx: { ...engine, stores: { ...engine.stores, jobs: dying } }, syncLease: lease };
      await expect(startAnalysis(deps, DEFAULT_ORG_ID, 'terraform', 'died-at-create', { raw_input: SMALL_PLAN })).rejects.toThrow('process died');

      const { jobs } = await real.list(DEFAULT_ORG_ID, 'running', { limit: 10, offset: 0 });
      const job = jobs.find((j) => j.namespace === 'died-at-create');
      expect(job).toMatchObject({ mode: 'sync', status: 'running', lease_owner: lease.owner });

      // What the runner does at the next start: the dead process's lease marks the job abandoned.
      const failed = await failAbandonedSyncJobs(engine, (owner) => owner === lease.owner);
      expect(failed.map((j) => j.job_id)).toEqual([job!.job_id]);
      const shown = (await (await server.api(`/jobs/${job!.job_id}`)).json()) as Record<string, unknown>;
      expect(shown).toMatchObject({ status: 'failed', error: expect.stringMatching(/stopped before it finished/) });
    } finally {
      await server.close();
    }
  });
});
