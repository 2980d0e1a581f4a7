/**
 * docs/decisions.md "Job progress": a job's unit hashes live apart from the job document, so a
 * progress step writes a document of constant size; every read that returns a job still carries
 * its hashes, including jobs stored before the split with their hashes inline.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store';
import type { Store } from '../store/port';
import { JOB_INDEXES, JobStore, type NewJob } from './job-store';

const NOW = '2026-11-01T10:00:00.000Z';
const HASHES = Array.from({ length: 50 }, (_, i) => `h${String(i).padStart(3, '0')}`);

function newJob(hashes: string[], orgId = 'org1'): NewJob {
  return {
    org_id: orgId,
    namespace: 'ns',
    analyzer: 'terraform',
    analyzers_used: [],
    detections: [],
    mode: 'async',
    trigger: 'api',
    external_ref: null,
    resource_count: hashes.length,
    total_count: hashes.length,
    llm_backend: 'openai',
    model: 'gpt-4o-mini',
    rule_type: null,
    retry_of: null,
    hashes,
    key_source: 'stored',
  };
}

let store: Store;
let jobs: JobStore;
beforeEach(async () => {
  store = await openStore({ backend: 'memory' });
  for (const [name, specs] of Object.entries(JOB_INDEXES)) await store.ensureIndexes(name, specs);
  jobs = new JobStore(store);
});
afterEach(async () => {
  await store.close();
});

describe('job unit hashes apart from the job document', () => {
  it('the job document holds no hashes; progress leaves the hashes document untouched; reads carry them', async () => {
    const job = await jobs.create(newJob(HASHES), NOW);
    expect(job.hashes).toEqual(HASHES);
    const raw = await store.collection('jobs').findOne({ job_id: job.job_id });
    expect(raw).not.toHaveProperty('hashes');
    const units = await store.collection('job_units').findOne({ job_id: job.job_id });
    await jobs.progress('org1', job.job_id, { processed_count: 3, current_resource: { hash: 'h002', resource_address: 'a.b', type: 'a' } }, NOW);
    expect(await store.collection('job_units').findOne({ job_id: job.job_id })).toEqual(units);
    const read = await jobs.get('org1', job.job_id);
    expect(read).toMatchObject({ processed_count: 3, hashes: HASHES, current_resource: { hash: 'h002' } });
    expect((await jobs.transition('org1', job.job_id, ['queued'], { status: 'running' }))?.hashes).toEqual(HASHES);
    expect((await jobs.unsafeClaimNext('runner', NOW, '2026-11-01T10:01:00.000Z'))?.hashes).toEqual(HASHES);
  });

  it("another org's job is not found, and its hashes are not read", async () => {
    const job = await jobs.create(newJob(HASHES), NOW);
    expect(await jobs.get('org2', job.job_id)).toBeNull();
  });

  it('a job stored before the split (hashes inline) still reads them and takes progress', async () => {
    const job = await jobs.create(newJob(['x']), NOW);
    const legacy = { ...job, job_id: 'legacy', hashes: HASHES };
    await store.collection('jobs').insertOne(legacy);
    await jobs.progress('org1', 'legacy', { processed_count: 1 }, NOW);
    expect(await jobs.get('org1', 'legacy')).toMatchObject({ processed_count: 1, hashes: HASHES });
  });

  it('lists jobs without reading their hashes', async () => {
    await jobs.create(newJob(HASHES), NOW);
    const { jobs: page, total } = await jobs.list('org1', undefined, { limit: 10, offset: 0 });
    expect(total).toBe(1);
    expect(page[0]).not.toHaveProperty('hashes');
  });
});
