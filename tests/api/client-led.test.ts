import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRules } from '../../engine/src/rules/select';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** What a client-side model would answer: one finding citing the first line of the body. */
function analysisFor(resource: { hash: string; value: { name: string; body: string } }, ruleId: string, confidence = 'HIGH') {
  const line = resource.value.body.split('\n').find((l) => l.trim().length > 0)!;
  return {
    summary: `Reviewed ${resource.value.name}.`,
    findings: [
      {
        title: `Issue on ${resource.value.name}`,
        severity: 'HIGH',
        rule_id: ruleId,
        risk: 'Data exposure',
        why_it_matters: 'Attackers read it.',
        suggested_next_step: 'Restrict it.',
        confidence,
        evidence: [line],
        resource_address: resource.value.name,
        tags: ['test'],
      },
    ],
  };
}

describe('client-led analysis loop over HTTP', () => {
  it('rules → ingest → next/PUT until 208 → report', async () => {
    const rules = await server.api('/terraform/rules');
    expect(rules.status).toBe(200);
    expect(rules.headers.get('content-type')).toMatch(/text\/markdown/);
    const ruleset = await rules.text();
    // Every unit of this plan is an AWS resource: next-resource serves the default rules plus the AWS ones.
    const awsRules = await (await server.api('/terraform/rules?type=aws')).text();
    expect(awsRules.startsWith(ruleset.trimEnd())).toBe(true);
    expect(awsRules).toMatch(/^## TF-AWS-/m);
    const ruleId = /^## (TF-AWS-[A-Z0-9-]+):/m.exec(awsRules)![1];

    const plan = corpusFile('tfplan-json/checkov-aws-github-oidc-iam-modules.json');
    const ingest = await server.api('/terraform/loop/ingest', { method: 'POST', body: new Uint8Array(plan) });
    expect(ingest.status).toBe(201);
    const units = (await ingest.json()) as { hash: string }[];

    const analysed: string[] = [];
    for (let i = 0; i < units.length + 1; i += 1) {
      const next = await server.api('/loop/resource/next');
      if (next.status === 208) break;
      expect(next.status).toBe(200);
      const resource = (await next.json()) as {
        hash: string;
        value: { name: string; type: string; action: string; body: string };
        rules: string;
        analysis: null;
      };
      // Only the rules that apply to the unit are served (issue 15): a selection of the AWS ruleset.
      expect(resource.rules).toBe(selectRules(awsRules, { type: resource.value.type, action: resource.value.action, metadata: { source: 'plan-json' } }).text);
      expect(resource.analysis).toBeNull();
      const put = await server.api(`/resource/${resource.hash}/analysis`, { method: 'PUT', json: analysisFor(resource, ruleId, i === 0 ? 'LOW' : 'HIGH') });
      expect(put.status).toBe(200);
      const stored = (await put.json()) as { hash: string; analysis: { summary: string } };
      expect(stored.analysis.summary).toContain(resource.value.name);
      analysed.push(resource.hash);
    }
    expect(new Set(analysed)).toEqual(new Set(units.map((u) => u.hash)));
    expect((await server.api('/loop/resource/next')).status).toBe(208);
    expect((await server.api('/never-ingested/resource/next')).status).toBe(404);

    const report = await server.api('/loop/report');
    expect(report.status).toBe(200);
    const { markdown_report } = (await report.json()) as { markdown_report: string };
    expect(markdown_report).toContain(ruleId);
    const raw = await server.api('/loop/report?format=html&raw=true');
    expect(raw.headers.get('content-type')).toMatch(/text\/html/);
    expect(await raw.text()).toContain(ruleId);
    const light = (await (await server.api('/loop/report?format=markdown_light')).json()) as { markdown_report: string };
    expect(light.markdown_report).toContain(ruleId);

    const byHash = (await (await server.api(`/resource/${units[0].hash}?filter=analysis`)).json()) as Record<string, unknown>;
    expect(Object.keys(byHash).sort()).toEqual(['analysis', 'hash']);
  });

  it('re-ingesting the analysed plan into a new namespace needs no analysis', async () => {
    const plan = corpusFile('tfplan-json/checkov-aws-github-oidc-iam-modules.json');
    expect((await server.api('/terraform/loop-again/ingest', { method: 'POST', body: new Uint8Array(plan) })).status).toBe(201);
    expect((await server.api('/loop-again/resource/next')).status).toBe(208);
  });

  it('PUT analysis rejects missing or empty summary/findings with 422 and unknown hashes with 404', async () => {
    const plan = corpusFile('tfplan-json/terraform-showjson-basic-delete.json');
    const units = (await (await server.api('/terraform/bad-put/ingest', { method: 'POST', body: new Uint8Array(plan) })).json()) as { hash: string }[];
    const hash = units[0].hash;
    for (const body of [
      {},
      { summary: '', findings: [] },
      { summary: 'x', findings: [] },
      { findings: [{}] },
      { summary: 'x', findings: [{ title: 't', severity: 'SEVERE' }] },
    ]) {
      const res = await server.api(`/resource/${hash}/analysis`, { method: 'PUT', json: body });
      expect(res.status).toBe(422);
      expect(typeof ((await res.json()) as { detail: string }).detail).toBe('string');
    }
    const notJson = await server.api(`/resource/${hash}/analysis`, { method: 'PUT', body: '{not json', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(422);
    const stored = (await (await server.api(`/resource/${hash}`)).json()) as { analysis: unknown };
    expect(stored.analysis).toBeNull();
    const missing = await server.api(`/resource/${'0'.repeat(64)}/analysis`, {
      method: 'PUT',
      json: {
        summary: 's',
        findings: [
          {
            title: 't',
            severity: 'LOW',
            rule_id: 'R',
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 'n',
            confidence: 'LOW',
            evidence: [],
            resource_address: 'a',
            tags: [],
          },
        ],
      },
    });
    expect(missing.status).toBe(404);
    expect((await server.api(`/resource/${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('serves each rule variant and 404s an unknown one', async () => {
    for (const type of ['aws', 'azure', 'gcp']) {
      const res = await server.api(`/terraform/rules?type=${type}`);
      expect(res.status, type).toBe(200);
    }
    expect((await server.api('/terraform/rules?type=oracle')).status).toBe(404);
    expect((await server.api('/nope/rules')).status).toBe(404);
  });
});
