import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { corpusFile } from '../helpers/test-server';

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
