/**
 * End-to-end: a pull-request diff mixing a Kubernetes manifest, a Dockerfile, a GitHub Actions
 * workflow and a CloudFormation template, analysed server-side (`POST /{namespace}/analyze/auto`)
 * through the fake LLM provider, gives one report grouping findings by analyzer.
 */
import { describe, expect, it } from 'vitest';
import { corpusFile, waitForJob } from '../helpers/test-server';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const env = useServerWithFakeProvider();

/** A git diff section adding `path` with the lines of a corpus file. */
function addedFile(path: string, corpus: string): string {
  const lines = corpusFile(corpus).toString('utf8').replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n');
}

const MIXED_DIFF = [
  corpusFile('diff-mixed/msdemo-d91b7722f-cartservice-unprivileged-dockerfile-k8s.diff').toString('utf8'),
  addedFile('.github/workflows/security.yml', 'gha-workflow/checkov-security-pull-request-target.yml'),
  addedFile('infra/site.yaml', 'cfn-template/awslabs-s3-website-public-read.yaml'),
].join('');

/** Analyzer → the prefix of its rule ids (the fake answers with the first rule of the ruleset it got). */
const RULE_PREFIX: Record<string, string> = {
  kubernetes: 'K8S-',
  dockerfile: 'DOCKER-',
  'github-actions': 'GHA-',
  cloudformation: 'CFN-',
};

describe('server-side analysis of a mixed diff', () => {
  it("routes each file to its analyzer, analyses each unit with that analyzer's rules, and reports by analyzer", async () => {
    const ingest = (await (await env.server.api('/mixed-preview/ingest/auto', { method: 'POST', body: MIXED_DIFF })).json()) as {
      detections: { path: string; analyzer: string; fallback: boolean }[];
      units: { name: string; metadata: { analyzer: string } }[];
    };
    expect(ingest.detections.map((d) => [d.path, d.analyzer, d.fallback])).toEqual([
      ['kubernetes-manifests/cartservice.yaml', 'kubernetes', false],
      ['src/cartservice/src/Dockerfile', 'dockerfile', false],
      ['.github/workflows/security.yml', 'github-actions', false],
      ['infra/site.yaml', 'cloudformation', false],
    ]);
    expect(ingest.units.map((u) => [u.metadata.analyzer, u.name])).toEqual([
      ['kubernetes', 'kubernetes-manifests/cartservice.yaml'],
      ['dockerfile', 'src/cartservice/src/Dockerfile'],
      ['github-actions', '.github/workflows/security.yml#start-security-scan'],
      ['github-actions', '.github/workflows/security.yml#security'],
      ['cloudformation', 'S3Bucket'],
    ]);

    env.fake.reset();
    const res = await env.server.api('/mixed-e2e/analyze/auto', {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test-openai', raw_input: MIXED_DIFF },
    });
    expect([200, 202]).toContain(res.status);
    const { job_id } = (await res.json()) as { job_id: string };
    expect(await waitForJob(env.server, job_id)).toMatchObject({ status: 'done', processed_count: 5, total_count: 5 });

    // Each unit went to the model with its own analyzer's ruleset.
    expect(env.fake.requests).toHaveLength(5);
    for (const prefix of Object.values(RULE_PREFIX)) {
      expect(
        env.fake.requests.some((r) => new RegExp(`^## ${prefix}`, 'm').test(r.system)),
        prefix,
      ).toBe(true);
    }
    for (const r of env.fake.requests) expect(r.system).not.toMatch(/^## (TF|GEN)-/m);

    const report = await (await env.server.api('/mixed-e2e/report?raw=true')).text();
    expect(report).toMatch(/\| Analyzer \|/);
    for (const [analyzer, prefix] of Object.entries(RULE_PREFIX)) {
      expect(report).toContain(`### Analyzer: ${analyzer}`);
      const section = report.slice(report.indexOf(`### Analyzer: ${analyzer}`)).split(/\n### Analyzer: /)[0];
      expect(section, analyzer).toContain(prefix);
    }
    expect(report).not.toContain('### Analyzer: blackhole');
  });
});
