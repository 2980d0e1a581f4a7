import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let fake: FakeProvider;
let server: TestServer;
beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

const RULES = '/orgs/default/rules';
const CATEGORIES = '/orgs/default/rule-categories';
type Rule = Record<string, any>;

const rules = async (query = '') => await (await server.api(`/terraform/rules${query}`)).text();
const count = (text: string, needle: string) => text.split(needle).length - 1;

function newRule(overrides: Record<string, unknown> = {}) {
  return {
    title: 'No public S3 buckets',
    description: 'Flag `acl = "public-read"` on **aws_s3_bucket_acl**.\n## Not a rule heading',
    category: 'data-protection',
    severity: 'HIGH',
    analyzers: ['terraform'],
    ...overrides,
  };
}

describe('built-in seed', () => {
  it('the default org is seeded at startup, without changing the composed ruleset', async () => {
    const list = (await (await server.api(RULES)).json()) as { rules: Rule[] };
    expect(list.rules.length).toBeGreaterThan(50);
    expect(list.rules.every((r) => r.is_builtin_seed && r.enabled)).toBe(true);
    const plaintext = list.rules.find((r) => r.rule_id === 'TF-GEN-SECRET-PLAINTEXT')!;
    expect(plaintext).toMatchObject({ category: 'built-in-terraform', rule_type: null, severity: 'CRITICAL', analyzers: ['terraform'] });
    expect(list.rules.find((r) => r.rule_id.startsWith('TF-AWS-'))).toMatchObject({ rule_type: 'aws' });
    const text = await rules();
    expect(text).not.toContain('# Custom rules');
    expect(count(text, '## TF-GEN-SECRET-PLAINTEXT:')).toBe(1);
    expect(await (await server.api(`${RULES}/seed-builtin`, { method: 'POST' })).json()).toEqual({ created: 0 });
    expect((await server.api(`${RULES}/TF-GEN-STATEFUL-DESTROY`, { method: 'DELETE' })).status).toBe(200);
    expect(await (await server.api(`${RULES}/seed-builtin`, { method: 'POST' })).json()).toEqual({ created: 1 });
  });

  it('a new org gets the built-ins automatically', async () => {
    const other = await otherOrg(server);
    const list = (await (await server.api(`/orgs/${other.orgId}/rules?analyzer=terraform&enabled=true`, { headers: other.headers })).json()) as {
      rules: Rule[];
    };
    expect(list.rules.length).toBeGreaterThan(50);
    expect(list.rules.every((r) => r.org_id === other.orgId)).toBe(true);
  });

  it('disabling a seeded row removes its built-in rule; editing it replaces the rule in place', async () => {
    const before = await rules();
    await server.api(`${RULES}/TF-GEN-SECRET-BOOTSTRAP`, { method: 'PATCH', json: { enabled: false } });
    expect(await rules()).not.toContain('## TF-GEN-SECRET-BOOTSTRAP:');
    await server.api(`${RULES}/TF-GEN-SECRET-BOOTSTRAP`, { method: 'PATCH', json: { enabled: true } });
    expect(await rules()).toBe(before);
    const edited = await server.api(`${RULES}/TF-GEN-SECRET-BOOTSTRAP`, { method: 'PATCH', json: { title: 'Bootstrap secrets', severity: 'MEDIUM' } });
    expect(await edited.json()).toMatchObject({ rule_id: 'TF-GEN-SECRET-BOOTSTRAP', title: 'Bootstrap secrets', updated_at: expect.any(String) });
    const text = await rules();
    expect(count(text, '## TF-GEN-SECRET-BOOTSTRAP:')).toBe(1);
    expect(text).toContain('## TF-GEN-SECRET-BOOTSTRAP: Bootstrap secrets\nSeverity: MEDIUM');
    expect(text.indexOf('TF-GEN-SECRET-BOOTSTRAP')).toBeLessThan(text.indexOf('TF-GEN-PROVIDER-STATIC-CREDENTIALS'));
  });
});

describe('categories and custom rules', () => {
  it('creates a category and a rule whose id derives from the title and never changes', async () => {
    const cat = await server.api(CATEGORIES, { method: 'POST', json: { name: 'Data protection' } });
    expect(cat.status).toBe(201);
    expect(await cat.json()).toMatchObject({ category_id: 'data-protection', name: 'Data protection', is_builtin_seed: false });
    expect((await server.api(CATEGORIES, { method: 'POST', json: { name: 'Data  Protection!' } })).status).toBe(409);
    const before = await server.api('/terraform/rules');
    const res = await server.api(RULES, { method: 'POST', json: newRule() });
    expect(res.status).toBe(201);
    const rule = (await res.json()) as Rule;
    expect(rule).toEqual({
      rule_id: 'CUSTOM-NO-PUBLIC-S3-BUCKETS',
      org_id: 'default',
      title: 'No public S3 buckets',
      description: newRule().description,
      category: 'data-protection',
      severity: 'HIGH',
      analyzers: ['terraform'],
      rule_type: null,
      enabled: true,
      requires_review: false,
      is_builtin_seed: false,
      created_by: expect.any(String),
      created_at: expect.any(String),
      updated_at: null,
    });
    const text = await rules();
    expect(text).toContain('# Custom rules: Data protection\n\n## CUSTOM-NO-PUBLIC-S3-BUCKETS: No public S3 buckets\nSeverity: HIGH');
    expect(text).toContain('#### Not a rule heading');
    expect(text.indexOf('# Custom rules')).toBeGreaterThan(text.indexOf('## TF-GEN-SECRET-PLAINTEXT'));
    const after = await server.api('/terraform/rules');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));

    const renamed = (await (
      await server.api(`${RULES}/CUSTOM-NO-PUBLIC-S3-BUCKETS`, { method: 'PATCH', json: { title: 'Buckets stay private' } })
    ).json()) as Rule;
    expect(renamed).toMatchObject({ rule_id: 'CUSTOM-NO-PUBLIC-S3-BUCKETS', title: 'Buckets stay private' });
    expect((await server.api(RULES, { method: 'POST', json: newRule() })).status).toBe(409);
    expect((await server.api(`${CATEGORIES}/data-protection`, { method: 'DELETE' })).status).toBe(409);
    const filtered = (await (await server.api(`${RULES}?category=data-protection`)).json()) as { rules: Rule[] };
    expect(filtered.rules.map((r) => r.rule_id)).toEqual(['CUSTOM-NO-PUBLIC-S3-BUCKETS']);
  });

  it('rule_type scopes a rule to one variant; disabled rules are left out', async () => {
    await server.api(RULES, { method: 'POST', json: newRule({ title: 'GCP only', rule_type: 'gcp' }) });
    expect(await rules('?type=gcp')).toContain('CUSTOM-GCP-ONLY');
    expect(await rules('?type=aws')).not.toContain('CUSTOM-GCP-ONLY');
    expect(await rules()).not.toContain('CUSTOM-GCP-ONLY');
    await server.api(`${RULES}/CUSTOM-GCP-ONLY`, { method: 'PATCH', json: { enabled: false } });
    expect(await rules('?type=gcp')).not.toContain('CUSTOM-GCP-ONLY');
    const byType = (await (await server.api(`${RULES}?rule_type=gcp&enabled=false`)).json()) as { rules: Rule[] };
    expect(byType.rules.map((r) => r.rule_id)).toEqual(['CUSTOM-GCP-ONLY']);
    expect((await server.api(RULES, { method: 'POST', json: newRule({ title: 'Bad type', rule_type: 'kubernetes' }) })).status).toBe(422);
  });

  it('analysis uses the custom rules, and a rule change re-analyses', async () => {
    const plan = corpusFile('tfplan-json/terraform-showjson-drift.json').toString();
    const analyze = (ns: string) =>
      server.api(`/terraform/${ns}/analyze`, { method: 'POST', json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: plan } });
    const first = fake.requests.length;
    expect((await analyze('custom-a')).status).toBe(200);
    expect(fake.requests.length).toBeGreaterThan(first);
    expect(fake.requests.at(-1)!.system).toContain('## CUSTOM-NO-PUBLIC-S3-BUCKETS: Buckets stay private');
    const second = fake.requests.length;
    expect((await analyze('custom-b')).status).toBe(200);
    expect(fake.requests.length).toBe(second); // unchanged ruleset: nothing re-analysed
    await server.api(`${RULES}/CUSTOM-NO-PUBLIC-S3-BUCKETS`, { method: 'PATCH', json: { description: 'Also flag public-read-write.' } });
    expect((await analyze('custom-c')).status).toBe(200);
    expect(fake.requests.length).toBeGreaterThan(second);
    expect(fake.requests.at(-1)!.system).toContain('Also flag public-read-write.');
  });

  it('requires_review: a match starts needs_review', async () => {
    await server.api(RULES, { method: 'POST', json: newRule({ title: 'Always review', requires_review: true }) });
    await server.api('/terraform/review-ns/ingest', { method: 'POST', body: new Uint8Array(corpusFile('tfplan-json/terraform-showjson-basic-delete.json')) });
    const next = (await (await server.api('/review-ns/resource/next')).json()) as { hash: string; value: { name: string } };
    const finding = {
      title: 't',
      severity: 'LOW',
      rule_id: 'CUSTOM-ALWAYS-REVIEW',
      risk: 'r',
      why_it_matters: 'w',
      suggested_next_step: 'n',
      confidence: 'HIGH',
      evidence: [],
      resource_address: next.value.name,
      tags: [],
    };
    expect((await server.api(`/resource/${next.hash}/analysis`, { method: 'PUT', json: { summary: 's', findings: [finding] } })).status).toBe(200);
    const list = (await (await server.api('/findings?rule_id=CUSTOM-ALWAYS-REVIEW')).json()) as { findings: { status: string }[] };
    expect(list.findings).toEqual([expect.objectContaining({ status: 'needs_review' })]);
  });

  it('categories: get, patch keeps the id, delete unused', async () => {
    await server.api(CATEGORIES, { method: 'POST', json: { name: 'Scratch', description: 'x' } });
    const patched = (await (await server.api(`${CATEGORIES}/scratch`, { method: 'PATCH', json: { name: 'Scratch pad' } })).json()) as Rule;
    expect(patched).toMatchObject({ category_id: 'scratch', name: 'Scratch pad', updated_at: expect.any(String) });
    const list = (await (await server.api(CATEGORIES)).json()) as { categories: Rule[] };
    expect(list.categories.map((c) => c.category_id)).toEqual(expect.arrayContaining(['built-in-terraform', 'data-protection', 'scratch']));
    expect((await server.api(`${CATEGORIES}/scratch`, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(`${CATEGORIES}/scratch`)).status).toBe(404);
    expect((await server.api(`${CATEGORIES}/scratch`, { method: 'DELETE' })).status).toBe(404);
  });

  it('roles 403, other org 404, bad bodies 422, unknown analyzer 404', async () => {
    expect((await server.api(RULES, { headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    expect((await server.api(CATEGORIES, { headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    const member = await roleHeaders(server, 'member');
    const viewer = await roleHeaders(server, 'viewer');
    expect((await server.api(RULES, { headers: member })).status).toBe(200);
    expect((await server.api(RULES, { headers: viewer })).status).toBe(403);
    expect((await server.api(CATEGORIES, { headers: viewer })).status).toBe(403);
    expect((await server.api(RULES, { method: 'POST', headers: member, json: newRule({ title: 'By member' }) })).status).toBe(403);
    expect((await server.api(`${RULES}/seed-builtin`, { method: 'POST', headers: member })).status).toBe(403);
    expect((await server.api(CATEGORIES, { method: 'POST', headers: member, json: { name: 'x' } })).status).toBe(403);

    const other = await otherOrg(server);
    expect((await server.api(`${RULES}/CUSTOM-NO-PUBLIC-S3-BUCKETS`, { headers: other.headers })).status).toBe(404);
    expect((await server.api(`/orgs/${other.orgId}/rules/CUSTOM-NO-PUBLIC-S3-BUCKETS`, { headers: other.headers })).status).toBe(404);
    expect(
      (await server.api(`/orgs/${other.orgId}/rules`, { method: 'POST', headers: other.headers, json: newRule({ title: 'Foreign category' }) })).status,
    ).toBe(422);
    expect((await server.api(`/orgs/${other.orgId}/rule-categories/data-protection`, { headers: other.headers })).status).toBe(404);

    expect((await server.api(RULES, { method: 'POST', json: newRule({ title: 'x'.repeat(201) }) })).status).toBe(422);
    expect((await server.api(RULES, { method: 'POST', json: newRule({ title: '' }) })).status).toBe(422);
    expect((await server.api(RULES, { method: 'POST', json: newRule({ severity: 'SEVERE' }) })).status).toBe(422);
    expect((await server.api(RULES, { method: 'POST', json: newRule({ analyzers: [] }) })).status).toBe(422);
    expect((await server.api(RULES, { method: 'POST', json: newRule({ category: 'nope', title: 'Unknown category' }) })).status).toBe(422);
    expect((await server.api(RULES, { method: 'POST', json: newRule({ analyzers: ['cobol'], title: 'Unknown analyzer' }) })).status).toBe(404);
    expect((await server.api(`${RULES}/CUSTOM-NO-PUBLIC-S3-BUCKETS`, { method: 'PATCH', json: { rule_id: 'X' } })).status).toBe(422);
    expect((await server.api(`${RULES}/CUSTOM-NOPE`, { method: 'PATCH', json: { enabled: false } })).status).toBe(404);
    expect((await server.api(`${RULES}?enabled=maybe`)).status).toBe(400); // unknown filter value
    expect((await server.api(CATEGORIES, { method: 'POST', json: { name: '!!!' } })).status).toBe(422);
  });
});
