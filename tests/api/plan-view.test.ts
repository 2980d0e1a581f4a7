/**
 * GET /{namespace}/plan (docs/decisions.md "Plan view"): after a checks-only analysis, every
 * unit of the namespace with Terraform's action and symbol (a replace and a data read named as
 * such), its module path, whether it was analysed, and exactly the triage records GET /findings
 * lists for the namespace. Another org's namespace answers 404 like a missing one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherOrg } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

type Unit = {
  hash: string;
  address: string;
  action: string;
  symbol: string;
  group: string[];
  analysed: boolean;
  lacks_model_review: boolean;
  findings: { rule_id: string; severity: string; title: string; status: string }[];
};

const PLANS = [
  'tfplan-json/tfcompliance-aws-deletes-drift-issue522.json', // create, update, delete, no-op
  'tfplan-json/checkov-aws-replace-create-delete.json', // a create-before-destroy replace
  'tfplan-json/checkov-aws-github-oidc-iam-modules.json', // a module, data sources read during apply
  'tfplan-json/infracost-aws-modules-tf014-large.json', // nested modules
];

describe('GET /{namespace}/plan', () => {
  let server: TestServer;
  let units: Unit[];

  /** Each plan into a namespace of its own: a namespace's plan is its latest ingest (docs/decisions.md "Runs compared"). */
  const namespaces = PLANS.map((_, i) => `plan-view-${i}`);

  beforeAll(async () => {
    server = await startTestServer();
    units = [];
    for (const [i, plan] of PLANS.entries()) {
      const res = await server.api(`/${namespaces[i]}/analyze/auto`, { method: 'POST', json: { raw_input: corpusFile(plan).toString('utf8') } });
      expect(res.status, plan).toBe(200);
      const view = await server.api(`/${namespaces[i]}/plan`);
      expect(view.status).toBe(200);
      const body = (await view.json()) as { namespace: string; units: Unit[] };
      expect(body.namespace).toBe(namespaces[i]);
      units.push(...body.units);
    }
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it("names each unit's action with Terraform's symbol", () => {
    const byAction = new Map(units.map((u) => [u.action, u.symbol]));
    expect(Object.fromEntries(byAction)).toMatchObject({ create: '+', update: '~', destroy: '-', read: '<=', 'no-op': '' });
    const replaced = units.filter((u) => u.action === 'replace');
    expect(replaced.length).toBeGreaterThan(0);
    expect(replaced.every((u) => u.symbol === '+/-')).toBe(true); // create before destroy
    expect(units.find((u) => u.address.startsWith('module.poc.data.'))?.action).toBe('read');
  });

  it('places each unit under its module path, one level per module call', () => {
    expect(units.find((u) => u.address === 'module.poc.aws_iam_openid_connect_provider.r5')?.group).toEqual(['module.poc']);
    const nested = units.find((u) => u.address === 'module.db.module.db_1.module.db_instance.aws_db_instance.this[0]');
    expect(nested?.group).toEqual(['module.db', 'module.db_1', 'module.db_instance']);
    expect(units.filter((u) => !u.address.startsWith('module.')).every((u) => u.group.length === 0)).toBe(true);
  });

  it('lists exactly the findings GET /findings gives for the namespace, and every unit as analysed', async () => {
    const key = (hash: string, f: { rule_id: string; severity: string; status: string }) => `${hash} ${f.rule_id} ${f.severity} ${f.status}`;
    let total = 0;
    for (const namespace of namespaces) {
      const view = ((await (await server.api(`/${namespace}/plan`)).json()) as { units: Unit[] }).units;
      const res = await server.api(`/findings?namespace=${namespace}&limit=1000`);
      const listed = ((await res.json()) as { findings: { resource_hash: string; rule_id: string; severity: string; status: string }[] }).findings;
      expect(view.flatMap((u) => u.findings.map((f) => key(u.hash, f))).sort(), namespace).toEqual(listed.map((f) => key(f.resource_hash, f)).sort());
      total += listed.length;
    }
    expect(total).toBeGreaterThan(0);
    expect(units.every((u) => u.analysed && !u.lacks_model_review)).toBe(true);
  });

  it('answers 404 for another org, 404 for an unknown namespace and 422 for a malformed one', async () => {
    const other = await otherOrg(server);
    expect((await server.api(`/${namespaces[0]}/plan`, { headers: other.headers })).status).toBe(404);
    expect((await server.api('/no-such-ns/plan')).status).toBe(404);
    const bad = await server.api('/-bad/plan');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/namespace/);
  });
});
