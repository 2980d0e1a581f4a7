/**
 * The README's walk-through, step by step, from the repository alone (issue 17 "The repository
 * stands alone"): every file it names exists in the repository, the client-led loop on the first
 * sample plan ends in 208 with the NO-FINDINGS all-clear, and the server-side flow on the second
 * sample plan calls the model once per unit (it would make no call on the first plan again).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitForJob } from '../helpers/test-server';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(`${REPO}README.md`, 'utf8');
const example = (name: string): string => readFileSync(`${REPO}resources/examples/${name}`, 'utf8');

const NO_FINDINGS = {
  summary: 'No rule applies.',
  findings: [
    {
      title: 'No findings',
      severity: 'INFO',
      rule_id: 'NO-FINDINGS',
      risk: 'Checked against the ruleset.',
      why_it_matters: '-',
      suggested_next_step: '-',
      confidence: 'HIGH',
      evidence: [],
      resource_address: '-',
      tags: [],
    },
  ],
};

const env = useServerWithFakeProvider();

describe('README walk-through', () => {
  it('names only files that exist in the repository, and no folder beside it', () => {
    const paths = [...README.matchAll(/(?:resources|docs|tests|bench|server|engine)\/[\w./-]+\.\w+/g)].map((m) => m[0]);
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) expect(existsSync(`${REPO}${path}`), path).toBe(true);
    expect(README).not.toMatch(/\.\.\/shared/);
    const manifest = readFileSync(`${REPO}resources/examples/MANIFEST.tsv`, 'utf8');
    for (const name of ['aws-github-oidc-plan.json', 'azure-firewall-plan.json', 's3-bucket-pull-request.diff']) {
      expect(manifest).toMatch(new RegExp(`^${name.replace(/\./g, '\\.')}\\t.+\\t.+\\t.+\\t\\S+`, 'm'));
    }
  });

  it('client-led: ingest the first sample, answer every unit with NO-FINDINGS until 208, report all clean', async () => {
    const ingest = await env.server.api('/terraform/demo/ingest', { method: 'POST', body: example('aws-github-oidc-plan.json') });
    expect(ingest.status).toBe(201);
    expect(await ingest.json()).toHaveLength(9);
    let answered = 0;
    for (;;) {
      const next = await env.server.api('/demo/resource/next');
      if (next.status === 208) break;
      expect(next.status).toBe(200);
      const unit = (await next.json()) as { hash: string };
      const put = await env.server.api(`/resource/${unit.hash}/analysis`, { method: 'PUT', json: NO_FINDINGS });
      expect(put.status).toBe(200);
      answered += 1;
      expect(answered).toBeLessThanOrEqual(9);
    }
    expect(answered).toBe(9);
    const report = await (await env.server.api('/demo/report?format=markdown&raw=true')).text();
    expect(report).toContain('9 analysed, 0 pending, 9 without findings');
  });

  it('server-side: the second sample is queued and sends each of its 11 units to the model once', async () => {
    env.fake.reset();
    const res = await env.server.api('/terraform/demo2/analyze', {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-walkthrough', raw_input: example('azure-firewall-plan.json') },
    });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    const job = await waitForJob(env.server, job_id);
    expect(job).toMatchObject({ status: 'done', processed_count: 11, total_count: 11 });
    expect(env.fake.requests).toHaveLength(11);
    const html = await (await env.server.api('/demo2/report?format=html&raw=true')).text();
    expect(html).toMatch(/<html/i);
  });

  it('the sample pull request routes its file through auto-ingest', async () => {
    const res = await env.server.api('/pr42/ingest/auto', { method: 'POST', body: example('s3-bucket-pull-request.diff') });
    expect(res.status).toBe(201);
  });
});
