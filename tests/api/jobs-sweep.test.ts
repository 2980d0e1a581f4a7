import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';

let clock = new Date('2026-11-01T10:00:00.000Z');
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ start: { now: () => clock } });
});
afterAll(async () => {
  await server.close();
});

describe('stuck-job sweep', () => {
  it('fails a job with no progress for over jobs.stuck_timeout_minutes and leaves a fresh one alone', async () => {
    const jobs = server.services.engine.stores.jobs;
    const base = {
      org_id: 'default',
      namespace: 'ns',
      analyzer: 'terraform',
      analyzers_used: [],
      detections: [],
      mode: 'sync' as const,
      status: 'running' as const,
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
    // A sync job whose process died mid-run: nothing else would ever finish it.
    const stuck = await jobs.create(base, clock.toISOString());
    clock = new Date(clock.getTime() + 30 * 60_000);
    const fresh = await jobs.create(base, clock.toISOString());
    clock = new Date(clock.getTime() + 31 * 60_000); // stuck: 61 min old; fresh: 31 min old

    expect(await server.services.runner.sweepStuck()).toBe(1);
    const failed = (await (await server.api(`/jobs/${stuck.job_id}`)).json()) as { status: string; error: string; finished_at: string };
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/stuck/);
    expect(failed.finished_at).toBe(clock.toISOString());
    const untouched = (await (await server.api(`/jobs/${fresh.job_id}`)).json()) as { status: string };
    expect(untouched.status).toBe('running');
    expect(await server.services.runner.sweepStuck()).toBe(0);
  });
});
