/**
 * Issue 15: a checks-only job (analysis with `llm_backend` omitted) that ended failed or
 * cancelled is retried as a checks-only job: POST /jobs/{id}/retry needs no model, key or
 * catalogue entry, and the retry finishes with the deterministic findings and no provider call.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useServerWithFakeProvider } from '../helpers/fake-server';
import { corpusFile, waitForJob } from '../helpers/test-server';

/** Two plans (resources are shared per org by unit hash: each case needs units of its own). */
const FIREWALL = { plan: 'tfplan-json/infracost-azure-firewall.json', units: 11, type: 'azurerm_firewall', rule: 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF' };
const DATABASE = { plan: 'tfplan-json/infracost-aws-modules-tf014-large.json', units: 26, type: 'aws_db_instance', rule: 'TF-GEN-SECRET-PLAINTEXT' };
type Case = typeof FIREWALL;
let clock = new Date('2026-11-01T10:00:00.000Z');
const env = useServerWithFakeProvider({ start: { now: () => clock } });
beforeEach(() => env.fake.reset());

type Resource = { value: { type: string }; analysis: { findings: { rule_id: string; confidence: string }[] } | null };

/** Ingests the plan into `namespace` and records the checks-only job the inline run had started, as the store holds it. */
async function checksOnlyJob(namespace: string, c: Case) {
  const ingest = await env.server.api(`/terraform/${namespace}/ingest`, { method: 'POST', body: corpusFile(c.plan).toString('utf8') });
  expect(ingest.status).toBe(201);
  const hashes = [...new Set(((await ingest.json()) as { hash: string }[]).map((u) => u.hash))];
  return env.server.services.engine.stores.jobs.create(
    {
      org_id: 'default',
      namespace,
      analyzer: 'terraform',
      analyzers_used: [],
      detections: [],
      mode: 'sync',
      status: 'running',
      trigger: 'api',
      external_ref: null,
      resource_count: hashes.length,
      total_count: hashes.length,
      llm_backend: 'none',
      model: 'none',
      rule_type: null,
      retry_of: null,
      hashes,
      key_source: 'none',
    },
    clock.toISOString(),
  );
}

async function retryAndCheck(jobId: string, namespace: string, c: Case): Promise<void> {
  const res = await env.server.api(`/jobs/${jobId}/retry`, { method: 'POST', json: {} });
  expect(res.status).toBe(202);
  const { job_id } = (await res.json()) as { job_id: string };
  const retry = await waitForJob(env.server, job_id);
  expect(retry).toMatchObject({ status: 'done', llm_backend: 'none', model: 'none', retry_of: jobId, processed_count: c.units, error: null });
  expect(env.fake.requests).toHaveLength(0);
  expect(env.fake.showRequests).toHaveLength(0);
  const resources = (await (await env.server.api(`/${namespace}/resources`)).json()) as Resource[];
  expect(resources.every((r) => r.analysis !== null)).toBe(true);
  const matched = resources.filter((r) => r.value.type === c.type);
  expect(matched.length).toBeGreaterThan(0);
  for (const r of matched) expect(r.analysis!.findings).toContainEqual(expect.objectContaining({ rule_id: c.rule, confidence: 'HIGH' }));
}

describe('retry of a checks-only job', () => {
  it('failed (its process died mid-run; the stuck sweep failed it): the retry runs the checks alone', async () => {
    const job = await checksOnlyJob('checks-retry-failed', FIREWALL);
    clock = new Date(clock.getTime() + 61 * 60_000);
    expect(await env.server.services.runner.sweepStuck()).toBe(1);
    expect(await (await env.server.api(`/jobs/${job.job_id}`)).json()).toMatchObject({ status: 'failed' });
    await retryAndCheck(job.job_id, 'checks-retry-failed', FIREWALL);
  });

  it('cancelled: the retry runs the checks alone', async () => {
    const job = await checksOnlyJob('checks-retry-cancelled', DATABASE);
    const now = clock.toISOString();
    await env.server.services.engine.stores.jobs.transition('default', job.job_id, ['running'], { status: 'cancelled', finished_at: now, updated_at: now });
    await retryAndCheck(job.job_id, 'checks-retry-cancelled', DATABASE);
  });
});
