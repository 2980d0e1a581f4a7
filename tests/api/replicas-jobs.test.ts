import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile } from '../helpers/test-server';
import { REPLICA_STORES } from '../helpers/replica-backends';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

/**
 * Two replicas: two real server processes (`tsx server/src/main.ts`) on one store, a SQLite
 * file (WAL) and, when MONGODB_URI is set, MongoDB. Jobs started on either run exactly once
 * (each unit reaches the provider once, one "job started" line per job across both), and a
 * retry raced across the two gives exactly one retry.
 */
const PLANS = [
  ['tfplan-json/checkov-gcp-modules.json', 'rep-gcp'],
  ['tfplan-json/checkov-aws-github-oidc-iam-modules.json', 'rep-aws'],
  ['tfplan-json/infracost-azure-firewall.json', 'rep-azure'],
  ['tfplan-json/tfcompliance-aws-deletes-drift-issue522.json', 'rep-drift'],
] as const;
const RETRY_PLAN = corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString();
const OPENAI = { llm_backend: 'openai', model: 'gpt-4o-mini' };

async function waitForJob(replica: ServerProcess, jobId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 1200; i += 1) {
    const job = (await (await replica.api(`/jobs/${jobId}`)).json()) as Record<string, any>;
    if (['done', 'failed', 'cancelled'].includes(job.status)) return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe.each(REPLICA_STORES)('two server processes on one $name store', (store) => {
  let fake: FakeProvider;
  let cleanup: (() => Promise<void>) | undefined;
  let replicas: ServerProcess[] = [];

  beforeAll(async () => {
    if (!store.enabled) return;
    fake = await startFakeProvider({ latencyMs: 20 });
    const prepared = store.prepare();
    cleanup = prepared.cleanup;
    const env = {
      ...prepared.env,
      PLANWARDEN_SERVER_SYNC_ANALYSIS_MAX_UNITS: '0', // every analysis is a background job
      PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS: '2',
      PLANWARDEN_ANALYSIS_LLM_MAX_ATTEMPTS: '1',
    };
    // One after the other: the first creates the schema and the data dir's generated keys.
    replicas.push(await spawnServer({ dataDir: prepared.env.PLANWARDEN_DATA_DIR, fake, env }));
    replicas.push(await spawnServer({ dataDir: prepared.env.PLANWARDEN_DATA_DIR, fake, env }));
    const stored = await replicas[0].api('/orgs/default/llm-credentials', { method: 'POST', json: { provider: 'openai', api_key: 'sk-stored' } });
    expect(stored.status).toBeLessThan(300);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    replicas = [];
    await fake?.close();
    await cleanup?.();
  });

  /** Log lines with `msg` across both replicas. */
  const logged = (msg: string) => replicas.flatMap((r) => r.logLines().filter((l) => l.msg === msg));

  it.runIf(store.enabled)(
    'runs jobs started on either replica exactly once',
    async () => {
      const accepted = await Promise.all(
        PLANS.map(async ([file, namespace], i) => {
          const replica = replicas[i % 2];
          const res = await replica.api(`/terraform/${namespace}/analyze`, { method: 'POST', json: { ...OPENAI, raw_input: corpusFile(file).toString() } });
          expect(res.status).toBe(202);
          return ((await res.json()) as { job_id: string }).job_id;
        }),
      );
      const jobs = await Promise.all(accepted.map((id, i) => waitForJob(replicas[(i + 1) % 2], id)));
      expect(jobs.map((j) => j.status)).toEqual(jobs.map(() => 'done'));
      const units = jobs.reduce((sum, j) => sum + j.resource_count, 0);
      const prompts = fake.requests.map((r) => r.user);
      expect(prompts).toHaveLength(units);
      expect(new Set(prompts).size).toBe(units);
      // A replica's log lines reach this process through its stdout pipe, after the job's status: wait for them.
      for (const id of accepted) {
        await expect.poll(() => logged('job finished').filter((l) => l.job_id === id).length, { timeout: 10_000 }).toBe(1);
        expect(logged('job started').filter((l) => l.job_id === id)).toHaveLength(1);
      }
    },
    120_000,
  );

  it.runIf(store.enabled)(
    'a retry raced across the two replicas gives exactly one retry',
    async () => {
      fake.reset();
      fake.script([{ status: 400, message: 'bad request: fail this job' }]); // the job's first unit fails, nothing else ran
      const res = await replicas[0].api('/terraform/rep-retry/analyze', { method: 'POST', json: { ...OPENAI, raw_input: RETRY_PLAN } });
      expect(res.status).toBe(202);
      const { job_id: jobId } = (await res.json()) as { job_id: string };
      const failed = await waitForJob(replicas[1], jobId);
      expect(failed.status).toBe('failed');
      fake.reset();

      const answers = await Promise.all(replicas.map((r) => r.api(`/jobs/${jobId}/retry`, { method: 'POST', json: {} })));
      expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
      const { job_id: retryId } = (await answers.find((r) => r.status === 202)!.json()) as { job_id: string };
      const done = await waitForJob(replicas[0], retryId);
      expect(done.status).toBe('done');
      const resources = (await (await replicas[1].api('/rep-retry/resources')).json()) as { analysis: unknown }[];
      expect(resources.every((r) => r.analysis !== null)).toBe(true);
      const prompts = fake.requests.map((r) => r.user);
      expect(prompts).toHaveLength(done.resource_count);
      expect(new Set(prompts).size).toBe(done.resource_count);
      const list = (await (await replicas[1].api('/jobs?limit=200')).json()) as { jobs: { retry_of: string | null }[] };
      expect(list.jobs.filter((j) => j.retry_of === jobId)).toHaveLength(1);
    },
    120_000,
  );
});
