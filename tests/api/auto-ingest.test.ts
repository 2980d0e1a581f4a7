import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, corpusFiles, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** The `diff --git a/X b/Y` file paths of a diff, counted independently of the product's parser. */
function diffPaths(diff: string): string[] {
  return [...diff.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)].map((m) => m[2]);
}

/** The analyzer a corpus diff file belongs to, judged from its path; anything else goes to blackhole. */
const EXPECTED_ANALYZER: readonly [RegExp, string][] = [
  [/\.tf$/, 'terraform'],
  [/(^|\/)Dockerfile$/, 'dockerfile'],
  [/^kubernetes-manifests\/|^examples\/karpenter\/.*\.yaml$/, 'kubernetes'],
];

type Detection = { path: string; detected_kind: string; analyzer: string | null; confidence: number; reason: string | null; fallback: boolean };

describe('POST /{namespace}/ingest/auto', () => {
  it.each([...corpusFiles('diff-mixed', '.diff'), ...corpusFiles('diff-tf', '.diff')])('%s: one detection per diff file', async (file) => {
    const diff = corpusFile(file).toString('utf8');
    const res = await server.api('/auto-ns/ingest/auto', { method: 'POST', body: diff });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { units: { metadata: { analyzer: string } }[]; analyzers_used: string[]; detections: Detection[] };
    const paths = diffPaths(diff);
    expect(body.detections.map((d) => d.path).sort()).toEqual([...paths].sort());
    for (const d of body.detections) {
      expect(typeof d.detected_kind).toBe('string');
      expect(typeof d.confidence).toBe('number');
      const expected = EXPECTED_ANALYZER.find(([re]) => re.test(d.path))?.[1];
      if (expected) expect(d).toMatchObject({ analyzer: expected, fallback: false });
      else expect(d).toMatchObject({ analyzer: 'blackhole', fallback: true });
    }
    for (const u of body.units) expect(body.analyzers_used).toContain(u.metadata.analyzer);
  });

  it('routes plan and Dockerfile blobs by sniffing and falls back to blackhole for anything else', async () => {
    const plan = corpusFile('tfplan-json/terraform-showjson-drift.json').toString();
    const res = await server.api('/auto-blob/ingest/auto', { method: 'POST', body: plan });
    const body = (await res.json()) as { analyzers_used: string[]; detections: Detection[] };
    expect(body.analyzers_used).toEqual(['terraform']);
    const docker = corpusFile('dockerfile/msdemo-frontend.Dockerfile').toString();
    const stages = (await (await server.api('/auto-blob/ingest/auto', { method: 'POST', body: docker })).json()) as {
      analyzers_used: string[];
      units: { name: string }[];
    };
    expect(stages.analyzers_used).toEqual(['dockerfile']);
    expect(stages.units.map((u) => u.name)).toEqual(['builder', 'stage-1']);
    const other = (await (await server.api('/auto-blob/ingest/auto', { method: 'POST', body: 'Release notes: nothing to deploy.\n' })).json()) as {
      analyzers_used: string[];
      detections: Detection[];
    };
    expect(other.analyzers_used).toEqual(['blackhole']);
    expect(other.detections[0].fallback).toBe(true);
  });

  it('answers 422 when nothing matches because the fallback is disabled, and for an empty body', async () => {
    expect((await server.api('/auto-off/ingest/auto', { method: 'POST', body: '' })).status).toBe(422);
    expect((await server.api('/orgs/default/analyzers/blackhole', { method: 'DELETE' })).status).toBe(200);
    try {
      const res = await server.api('/auto-off/ingest/auto', { method: 'POST', body: 'Release notes: nothing to deploy.\n' });
      expect(res.status).toBe(422);
      const analyzers = (await (await server.api('/orgs/default/analyzers')).json()) as {
        analyzers: { name: string; enabled: boolean; version: string; file_globs: string[] }[];
      };
      expect(analyzers.analyzers.find((a) => a.name === 'blackhole')!.enabled).toBe(false);
      expect((await server.api('/blackhole/rules')).status).toBe(404);
    } finally {
      expect((await server.api('/orgs/default/analyzers/blackhole', { method: 'POST', json: { enabled: true } })).status).toBe(200);
    }
    expect((await server.api('/orgs/default/analyzers/nope', { method: 'POST', json: { enabled: true } })).status).toBe(404);
    expect((await server.api('/orgs/default/analyzers/terraform', { method: 'POST', json: { enabled: 'yes' } })).status).toBe(422);
  });

  it('groups the report by analyzer with an Analyzer column when a namespace has several', async () => {
    const diff = corpusFile('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff').toString();
    const body = (await (await server.api('/mixed-report/ingest/auto', { method: 'POST', body: diff })).json()) as {
      units: { hash: string; name: string; metadata: { analyzer: string } }[];
      analyzers_used: string[];
    };
    expect(body.analyzers_used.sort()).toEqual(['blackhole', 'kubernetes', 'terraform']);
    const ruleFor: Record<string, string> = { terraform: 'TF-GEN-SECRET-PLAINTEXT', kubernetes: 'K8S-PRIVILEGED-CONTAINER', blackhole: 'GEN-SECRET-IN-CODE' };
    for (const unit of body.units) {
      const put = await server.api(`/resource/${unit.hash}/analysis`, {
        method: 'PUT',
        json: {
          summary: 's',
          findings: [
            {
              title: `finding on ${unit.name}`,
              severity: 'MEDIUM',
              rule_id: ruleFor[unit.metadata.analyzer],
              risk: 'r',
              why_it_matters: 'w',
              suggested_next_step: 'n',
              confidence: 'HIGH',
              evidence: [],
              resource_address: unit.name,
              tags: [],
            },
          ],
        },
      });
      expect(put.status).toBe(200);
    }
    const report = await (await server.api('/mixed-report/report?raw=true')).text();
    expect(report).toMatch(/\| Analyzer \|/);
    expect(report).toContain('### Analyzer: terraform');
    expect(report).toContain('### Analyzer: kubernetes');
    expect(report).toContain('### Analyzer: blackhole');
    const single = await (await server.api('/auto-blob/report?raw=true')).text();
    expect(single).not.toMatch(/\| Analyzer \|/);
  });

  it("lists analyzers and 404s another org's analyzer settings", async () => {
    const res = (await (await server.api('/analyzers')).json()) as { analyzers: { name: string; description: string }[] };
    expect(res.analyzers.map((a) => a.name).sort()).toEqual(['blackhole', 'cloudformation', 'dockerfile', 'github-actions', 'kubernetes', 'terraform']);
    expect((await server.api('/orgs/someone-else/analyzers')).status).toBe(404);
  });
});
