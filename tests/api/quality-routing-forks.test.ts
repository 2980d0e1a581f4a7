/**
 * Two false positives of the held-back run, over HTTP: GHA-SECRETS-TO-FORKS on
 * `pull_request_target` jobs that run no pull-request code with a read-only token (checks-only
 * analysis, no model), and a `kubernetes-manifests.yaml` hunk without `apiVersion`/`kind` sent to
 * the fallback analyzer by `POST /{namespace}/ingest/auto`. Inputs: the synthetic evaluation
 * files (tests/fixtures/eval/synthetic/).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';

const synthetic = (name: string): string => readFileSync(new URL(`../fixtures/eval/synthetic/${name}`, import.meta.url), 'utf8');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

type Resource = { value: { name: string }; analysis: { findings: { rule_id: string; confidence: string }[] } | null };

describe('held-back false positives', () => {
  it('pull_request_target jobs: no secrets finding without pull-request code and a read-only token; one when the head is checked out', async () => {
    const res = await server.api('/github-actions/prt-forks/analyze', { method: 'POST', json: { raw_input: synthetic('gha-prt-secrets.yml') } });
    expect(res.status).toBe(200);
    const resources = (await (await server.api('/prt-forks/resources')).json()) as Resource[];
    const rules = new Map(resources.map((r) => [r.value.name.split('#').pop(), r.analysis?.findings.map((f) => f.rule_id) ?? []]));
    expect(rules.get('label')).toEqual(['NO-FINDINGS']);
    expect(rules.get('notify')).toEqual(['NO-FINDINGS']);
    for (const job of ['preview', 'autofix']) expect(rules.get(job)).toEqual(expect.arrayContaining(['GHA-PRT-UNTRUSTED-CHECKOUT', 'GHA-SECRETS-TO-FORKS']));
  });

  it('a manifest hunk without apiVersion/kind goes to the kubernetes analyzer by the file name or its other hunk; a neutral YAML file to the fallback', async () => {
    const res = await server.api('/k8s-hunks/ingest/auto', { method: 'POST', body: synthetic('k8s-manifests-hunks.diff') });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { detections: { path: string; analyzer: string; fallback: boolean }[]; units: { name: string; type: string }[] };
    expect(body.detections.map((d) => [d.path, d.analyzer, d.fallback])).toEqual([
      ['release/kubernetes-manifests.yaml', 'kubernetes', false],
      ['deploy/web.yaml', 'kubernetes', false],
      ['config/app-settings.yaml', 'blackhole', true],
    ]);
    expect(body.units.filter((u) => u.type === 'kubernetes_manifest_change').map((u) => u.name)).toEqual([
      'release/kubernetes-manifests.yaml',
      'deploy/web.yaml',
    ]);
  });
});
