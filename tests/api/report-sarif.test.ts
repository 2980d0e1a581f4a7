import type * as Sarif from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { otherOrg } from '../helpers/org-keys';
import { sarifSchemaErrors } from '../helpers/sarif-schema';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

/** GET /{namespace}/report?format=sarif (issue 17): SARIF 2.1.0 from the report endpoint. */
let fake: FakeProvider;
let server: TestServer;
const PLAN = 'tfplan-json/terraform-showjson-basic-delete.json'; // 2 resource changes
const DIFF = 'diff-tf/tf-aws-vpc-802d5f1-vpce-security-group.diff';

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake, overrides: { server: { host: '127.0.0.1', port: 0, sync_analysis_max_units: 100 } } });
  for (const [ns, input] of [
    ['sarif-plan', PLAN],
    ['sarif-diff', DIFF],
  ]) {
    const res = await server.api(`/${ns}/analyze/auto`, {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test', raw_input: corpusFile(input).toString('utf8') },
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

async function sarif(namespace: string, headers?: Record<string, string>): Promise<Sarif.Log> {
  const res = await server.api(`/${namespace}/report?format=sarif`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { sarif_report: Sarif.Log }).sarif_report;
}

describe('GET /{namespace}/report?format=sarif', () => {
  it('answers a schema-valid SARIF 2.1.0 log with the ruleset help for every rule used', async () => {
    const log = await sarif('sarif-plan');
    expect(sarifSchemaErrors(log)).toEqual([]);
    const run = log.runs[0];
    expect(run.results!.length).toBe(2);
    const rules = run.tool.driver.rules!;
    for (const result of run.results!) {
      const rule = rules[result.ruleIndex!];
      expect(rule.id).toBe(result.ruleId);
      expect(rule.help!.text).toMatch(/^[A-Z0-9-]+: .+\nSeverity: (CRITICAL|HIGH|MEDIUM|LOW|INFO)\n\nLook for:\n- /);
      expect(rule.help!.markdown).toContain(`## ${rule.id}: `);
      // The fake reports HIGH findings.
      expect(result.level).toBe('error');
      expect(result.properties!['security-severity']).toBe('8.0');
      expect(result.partialFingerprints!['planwardenUnitRule/v1']).toMatch(/^[0-9a-f]{64}$/);
      // Plan units have no file: the resource address is the location.
      expect(result.locations![0].physicalLocation).toBeUndefined();
      expect(result.locations![0].logicalLocations![0].fullyQualifiedName).toBe(result.properties!.resource_address);
    }
  });

  it('raw=true serves the log as application/sarif+json', async () => {
    const res = await server.api('/sarif-plan/report?format=sarif&raw=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/sarif\+json/);
    expect(sarifSchemaErrors(JSON.parse(await res.text()))).toEqual([]);
  });

  it('locates diff units in their .tf file at the first line of the block', async () => {
    const log = await sarif('sarif-diff');
    expect(sarifSchemaErrors(log)).toEqual([]);
    const located = log.runs[0].results!.filter((r) => r.locations![0].physicalLocation);
    expect(located.length).toBeGreaterThan(0);
    const diff = corpusFile(DIFF).toString('utf8');
    for (const r of located) {
      const { artifactLocation, region } = r.locations![0].physicalLocation!;
      const path = decodeURIComponent(artifactLocation!.uri!);
      expect(diff).toContain(`+++ b/${path}`);
      expect(region?.startLine).toBeGreaterThanOrEqual(1);
    }
    // A block of modules/vpc-endpoints/main.tf starts where its hunk puts it on the new side, not at line 1.
    const block = located.find(
      (r) =>
        r.locations![0].physicalLocation!.artifactLocation!.uri === 'modules/vpc-endpoints/main.tf' && r.locations![0].physicalLocation!.region!.startLine! > 1,
    );
    expect(block).toBeDefined();
  });

  it('keeps the fingerprint when the same unit is reported from another namespace', async () => {
    const res = await server.api('/sarif-plan-again/analyze/auto', {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test', raw_input: corpusFile(PLAN).toString('utf8') },
    });
    expect(res.status).toBe(200);
    const fingerprints = (log: Sarif.Log) => log.runs[0].results!.map((r) => r.partialFingerprints!['planwardenUnitRule/v1']).sort();
    expect(fingerprints(await sarif('sarif-plan-again'))).toEqual(fingerprints(await sarif('sarif-plan')));
  });

  it('carries a finding triaged false_positive as a suppression instead of dropping it', async () => {
    const [first] = (await sarif('sarif-plan')).runs[0].results!;
    const hash = String(first.properties!.resource_hash);
    const patched = await server.api(`/findings/${hash}/${encodeURIComponent(first.ruleId!)}`, {
      method: 'PATCH',
      json: { status: 'false_positive', note: 'Deleting a local file is fine.' },
    });
    expect(patched.status).toBe(200);
    const log = await sarif('sarif-plan');
    expect(sarifSchemaErrors(log)).toEqual([]);
    const results = log.runs[0].results!;
    expect(results).toHaveLength(2);
    const triaged = results.find((r) => r.properties!.resource_hash === hash && r.ruleId === first.ruleId)!;
    expect(triaged.suppressions).toEqual([
      { kind: 'external', status: 'accepted', justification: 'Triaged as false_positive in Planwarden: Deleting a local file is fine.' },
    ]);
    expect(triaged.properties!.status).toBe('false_positive');
    expect(results.filter((r) => r.suppressions)).toHaveLength(1);
    // The markdown report still hides it by default.
    const md = await (await server.api('/sarif-plan/report?raw=true')).text();
    expect(md).not.toContain('Deleting a local file is fine.');
  });

  it("answers 404 for an unknown namespace and for another org's namespace, 400/422 for an unknown format", async () => {
    expect((await server.api('/no-such-namespace/report?format=sarif')).status).toBe(404);
    const other = await otherOrg(server);
    const res = await server.api('/sarif-plan/report?format=sarif', { headers: other.headers });
    expect(res.status).toBe(404);
    const bad = await server.api('/sarif-plan/report?format=csv');
    expect([400, 422]).toContain(bad.status);
    expect(await bad.json()).toHaveProperty('detail');
  });
});
