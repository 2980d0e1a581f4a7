import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, registerUser, startAuthServer, type Client } from '../helpers/identity';

/** identity-api.md "Platform administration": the `/admin/custom-rules` mirror (paths in docs/decisions.md). */
let server: TestServer;
let boot: Client;
let tenant: { client: Client; orgId: string };
let bystander: { client: Client; orgId: string };

beforeAll(async () => {
  server = await startAuthServer();
  boot = bootstrap(server);
  const a = await registerUser(server, 'cr-owner@example.com', { orgName: 'Rules Tenant' });
  const b = await registerUser(server, 'cr-other@example.com', { orgName: 'Bystander' });
  tenant = { client: a.client, orgId: a.orgId as string };
  bystander = { client: b.client, orgId: b.orgId as string };
});
afterAll(async () => {
  await server.close();
});

const rule = { title: 'No wildcard IAM', description: 'Flag `Action = "*"`.', category: 'tenant-policies', severity: 'HIGH', analyzers: ['terraform'] };

describe('/admin/custom-rules/{org_id}', () => {
  it("a superadmin manages another org's categories and rules; the org sees exactly that, the bystander nothing", async () => {
    const base = `/admin/custom-rules/${tenant.orgId}`;
    const category = await boot.post(`${base}/rule-categories`, { name: 'Tenant policies', description: 'Set by the platform team' });
    expect(category.status).toBe(201);
    expect(category.body).toMatchObject({ category_id: 'tenant-policies', org_id: tenant.orgId });
    expect((await boot.post(`${base}/rule-categories`, { name: 'Tenant policies' })).status).toBe(409);

    const created = await boot.post(`${base}/rules`, rule);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ rule_id: 'CUSTOM-NO-WILDCARD-IAM', org_id: tenant.orgId, severity: 'HIGH', enabled: true });
    expect((await boot.patch(`${base}/rules/CUSTOM-NO-WILDCARD-IAM`, { severity: 'CRITICAL' })).body.severity).toBe('CRITICAL');

    // The org's own surface reads what the superadmin wrote.
    const own = await tenant.client.get(`/orgs/${tenant.orgId}/rules/CUSTOM-NO-WILDCARD-IAM`);
    expect(own.status).toBe(200);
    expect(own.body.severity).toBe('CRITICAL');
    const mirrored = await boot.get(`${base}/rules?category=tenant-policies`);
    expect(mirrored.body.rules.map((r: { rule_id: string }) => r.rule_id)).toEqual(['CUSTOM-NO-WILDCARD-IAM']);
    expect((await boot.get(`${base}/rule-categories/tenant-policies`)).body.name).toBe('Tenant policies');

    // Nothing leaks into another org.
    expect((await bystander.client.get(`/orgs/${bystander.orgId}/rules/CUSTOM-NO-WILDCARD-IAM`)).status).toBe(404);
    expect((await boot.get(`/admin/custom-rules/${bystander.orgId}/rules/CUSTOM-NO-WILDCARD-IAM`)).status).toBe(404);

    // The category guardrail holds on the mirror too; delete the rule, then the category.
    expect((await boot.delete(`${base}/rule-categories/tenant-policies`)).status).toBe(409);
    expect((await boot.delete(`${base}/rules/CUSTOM-NO-WILDCARD-IAM`)).status).toBe(200);
    expect((await tenant.client.get(`/orgs/${tenant.orgId}/rules/CUSTOM-NO-WILDCARD-IAM`)).status).toBe(404);
    expect((await boot.delete(`${base}/rule-categories/tenant-policies`)).status).toBe(200);

    // Audited in the tenant's own log, same events as the org routes.
    const audit = (await tenant.client.get('/metrics/audit?target_type=custom_rule')).body;
    const actions = audit.events.map((e: { action: string }) => e.action).sort();
    expect(actions).toEqual(['rule.create', 'rule.delete', 'rule.update']);
  });

  it('seed-builtin restores a deleted built-in row in the target org only', async () => {
    const base = `/admin/custom-rules/${tenant.orgId}`;
    expect((await boot.delete(`${base}/rules/TF-GEN-SECRET-PLAINTEXT`)).status).toBe(200);
    expect((await boot.post(`${base}/rules/seed-builtin`)).body).toEqual({ created: 1 });
    expect((await tenant.client.get(`/orgs/${tenant.orgId}/rules/TF-GEN-SECRET-PLAINTEXT`)).status).toBe(200);
  });

  it('answers 404 for an unknown org, 422 for a bad body, 401 without a credential, 403 for an org owner', async () => {
    expect((await boot.get('/admin/custom-rules/no-such-org/rules')).status).toBe(404);
    expect((await boot.post('/admin/custom-rules/no-such-org/rules', rule)).status).toBe(404);
    const bad = await boot.post(`/admin/custom-rules/${tenant.orgId}/rules`, { ...rule, severity: 'SEVERE' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual(expect.any(String));
    expect((await boot.post(`/admin/custom-rules/${tenant.orgId}/rules`, { ...rule, category: 'not-a-category' })).status).toBe(422);
    expect((await new (boot.constructor as typeof Client)(server).get(`/admin/custom-rules/${tenant.orgId}/rules`)).status).toBe(401);
    // An org owner may manage their own rules, but not through the platform mirror (not even for their own org).
    expect((await tenant.client.get(`/admin/custom-rules/${tenant.orgId}/rules`)).status).toBe(403);
    expect((await tenant.client.post(`/admin/custom-rules/${bystander.orgId}/rules`, rule)).status).toBe(403);
  });
});
