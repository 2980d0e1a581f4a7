import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, Client, existingAccountJoins, FakeClock, memberOf, registerUser, startAuthServer } from '../helpers/identity';

/**
 * Issue 14: account takeover through org resets, stale privilege after a demotion, org-read
 * tenancy. Each test performs the attack over HTTP (or MCP) and shows it no longer gets through.
 */
const PASSWORD = 'correct-horse-1';

describe('security: org resets reach only administered accounts; demotions apply at once', () => {
  const clock = new FakeClock();
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let orgId: string;

  beforeAll(async () => {
    server = await startAuthServer({ clock });
    owner = await registerUser(server, 'sec-owner@example.com', { orgName: 'Home' });
    orgId = owner.orgId as string;
  });
  afterAll(async () => {
    await server.close();
  });

  const signIn = async (email: string, password = PASSWORD) => {
    const client = new Client(server);
    const res = await client.post('/auth/session', { email, password });
    return { client, res };
  };
  const resets = (org: string, userId: string) => [
    `/orgs/${org}/members/${userId}/reset-password`,
    `/orgs/${org}/members/${userId}/reset-2fa`,
    `/orgs/${org}/members/${userId}/2fa-reset`,
  ];

  it('an attacker cannot add a superadmin to their org by e-mail, nor reset a member who became one', async () => {
    const victim = await registerUser(server, 'sec-super@example.com');
    expect((await bootstrap(server).post(`/admin/users/${victim.userId}/superadmin`, { enabled: true })).status).toBe(200);
    const attacker = await registerUser(server, 'sec-attacker1@example.com', { orgName: 'Attacker One' });
    const added = await attacker.client.post(`/orgs/${attacker.orgId}/members`, { email: 'sec-super@example.com', role: 'viewer' });
    expect(added.status).toBe(403);
    expect(added.body.detail).toMatch(/platform administrator/);
    expect((await attacker.client.get(`/orgs/${attacker.orgId}/members`)).body.members.some((m: { user_id: string }) => m.user_id === victim.userId)).toBe(
      false,
    );
    // An account the org created, later made a platform administrator, leaves the org's reach.
    const promoted = await memberOf(server, attacker.client, attacker.orgId as string, 'sec-promoted@example.com', 'viewer');
    expect((await bootstrap(server).post(`/admin/users/${promoted.userId}/superadmin`, { enabled: true })).status).toBe(200);
    for (const path of resets(attacker.orgId as string, promoted.userId)) {
      const res = await attacker.client.post(path);
      expect(res.status, path).toBe(403);
      expect(res.body.detail).toMatch(/platform administrator/);
    }
    const login = await signIn('sec-super@example.com');
    expect(login.res.status).toBe(200);
    expect(login.res.body.is_superadmin).toBe(true);
  });

  it("an attacker cannot take over another org's owner with TOTP on (neither 2FA nor password reset)", async () => {
    const victim = await registerUser(server, 'sec-totp-owner@example.com', { orgName: 'Victim Org' });
    const secret = (await victim.client.post('/auth/me/2fa/enroll')).body.manual_entry_code as string;
    expect((await victim.client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) })).status).toBe(200);
    const attacker = await registerUser(server, 'sec-attacker2@example.com', { orgName: 'Attacker Two' });
    expect((await attacker.client.post(`/orgs/${attacker.orgId}/members`, { email: 'sec-totp-owner@example.com', role: 'viewer' })).status).toBe(201);
    for (const path of resets(attacker.orgId as string, victim.userId)) {
      const res = await attacker.client.post(path);
      expect(res.status, path).toBe(403);
      expect(res.body.detail).toMatch(/added to this organization by e-mail/);
    }
    // The victim's sessions and second factor are untouched.
    expect((await victim.client.get('/auth/me')).body).toMatchObject({ user: { two_factor_enabled: true }, role: 'owner' });
    expect((await signIn('sec-totp-owner@example.com')).res.body).toHaveProperty('mfa_token');
  });

  it('adding an org-less account by e-mail does not make the adder its administrator', async () => {
    const victim = await registerUser(server, 'sec-orgless@example.com');
    const attacker = await registerUser(server, 'sec-attacker3@example.com', { orgName: 'Attacker Three' });
    expect((await attacker.client.post(`/orgs/${attacker.orgId}/members`, { email: 'sec-orgless@example.com', role: 'member' })).status).toBe(201);
    const res = await attacker.client.post(`/orgs/${attacker.orgId}/members/${victim.userId}/reset-password`);
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/added to this organization by e-mail/);
    expect((await signIn('sec-orgless@example.com')).res.status).toBe(200);
  });

  it('an account active in another org too is not administered by either; the admin mirror still resets it', async () => {
    const shared = await memberOf(server, owner.client, orgId, 'sec-shared@example.com', 'member');
    const second = await registerUser(server, 'sec-second-owner@example.com', { orgName: 'Second' });
    const invite = await second.client.post(`/orgs/${second.orgId}/invites`, { email: 'sec-shared@example.com', role: 'viewer' });
    expect((await shared.client.post(`/auth/me/invitations/${invite.body.invite_id}/accept`)).status).toBe(200);
    const home = await owner.client.post(`/orgs/${orgId}/members/${shared.userId}/reset-password`);
    expect(home.status).toBe(403);
    expect(home.body.detail).toMatch(/active member of other organizations/);
    // The second org did not create the account: it never administers it.
    const away = await second.client.post(`/orgs/${second.orgId}/members/${shared.userId}/reset-password`);
    expect(away.status).toBe(403);
    expect(away.body.detail).toMatch(/existed before it joined/);
    // Once the other membership is deactivated, the home org administers the account again.
    expect((await second.client.patch(`/orgs/${second.orgId}/members/${shared.userId}`, { is_active: false })).status).toBe(200);
    const reset = await owner.client.post(`/orgs/${orgId}/members/${shared.userId}/reset-password`);
    expect(reset.status).toBe(200);
    expect((await signIn('sec-shared@example.com', reset.body.temporary_password)).res.status).toBe(200);
    const mirrored = await bootstrap(server).post(`/admin/organizations/${second.orgId}/members/${shared.userId}/2fa-reset`);
    expect(mirrored.status).toBe(200);
  });

  /** Configures SCIM for `org` and returns a SCIM client for its token (application/scim+json). */
  const scimClient = async (admin: Client, org: string) => {
    const created = await admin.post(`/orgs/${org}/scim`, {});
    expect(created.status).toBe(201);
    return async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}/api/v1/scim/v2/${org}${path}`, {
        method,
        headers: { authorization: `Bearer ${created.body.token}`, 'content-type': 'application/scim+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
  };
  const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

  it("SCIM takeover chain: provisioning an existing account's e-mail gives the org no power over it", async () => {
    const victim = await registerUser(server, 'sec-scim-victim@example.com');
    const attacker = await registerUser(server, 'sec-scim-attacker@example.com', { orgName: 'Attacker SCIM' });
    const scim = await scimClient(attacker.client, attacker.orgId as string);
    const linked = await scim('POST', '/Users', { userName: 'sec-scim-victim@example.com' });
    expect(linked.status).toBe(201);
    expect(linked.body.id).toBe(victim.userId);
    for (const path of resets(attacker.orgId as string, victim.userId)) {
      const res = await attacker.client.post(path);
      expect(res.status, path).toBe(403);
      expect(res.body.detail).toMatch(/existed before it joined this organization/);
    }
    expect((await victim.client.get('/auth/me')).status).toBe(200);
    expect((await signIn('sec-scim-victim@example.com')).res.status).toBe(200);
  });

  it('an org administers the accounts its own flows created: invited sign-up and SCIM provisioning', async () => {
    const org = await registerUser(server, 'sec-prov-owner@example.com', { orgName: 'Provenance' });
    const provOrg = org.orgId as string;
    // Signed up through the org's invitation: the org resets it.
    const invited = await memberOf(server, org.client, provOrg, 'sec-prov-invited@example.com', 'member');
    const reset = await org.client.post(`/orgs/${provOrg}/members/${invited.userId}/reset-password`);
    expect(reset.status).toBe(200);
    expect((await signIn('sec-prov-invited@example.com', reset.body.temporary_password)).res.status).toBe(200);
    // Created by the org's SCIM: administered (its password is the identity provider's: 400, as for any SSO account).
    const scim = await scimClient(org.client, provOrg);
    const created = await scim('POST', '/Users', { userName: 'sec-prov-scim@example.com' });
    expect(created.status).toBe(201);
    expect((await org.client.post(`/orgs/${provOrg}/members/${created.body.id}/reset-2fa`)).status).toBe(200);
    expect((await org.client.post(`/orgs/${provOrg}/members/${created.body.id}/reset-password`)).status).toBe(400);
    // An existing account that accepted an invitation stays its holder's.
    const joined = await existingAccountJoins(server, org.client, provOrg, 'sec-prov-existing@example.com', 'member');
    const refused = await org.client.post(`/orgs/${provOrg}/members/${joined.userId}/reset-password`);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/existed before it joined/);
  });

  it('SCIM never places a superadmin in a tenant org: POST 403, reactivation by PATCH or PUT 403', async () => {
    const platform = await registerUser(server, 'sec-scim-super@example.com');
    expect((await bootstrap(server).post(`/admin/users/${platform.userId}/superadmin`, { enabled: true })).status).toBe(200);
    const tenant = await registerUser(server, 'sec-scim-tenant@example.com', { orgName: 'Tenant SCIM' });
    const tenantOrg = tenant.orgId as string;
    const scim = await scimClient(tenant.client, tenantOrg);
    const placed = await scim('POST', '/Users', { userName: 'sec-scim-super@example.com', externalId: 'x-1' });
    expect(placed.status).toBe(403);
    expect(placed.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '403',
      detail: expect.stringMatching(/platform administrator/),
    });
    expect((await scim('GET', `/Users/${platform.userId}`)).status).toBe(404);
    // A member who became superadmin while deactivated is not brought back by SCIM.
    const member = await memberOf(server, tenant.client, tenantOrg, 'sec-scim-later@example.com', 'member');
    expect(
      (await scim('PATCH', `/Users/${member.userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] })).status,
    ).toBe(200);
    expect((await bootstrap(server).post(`/admin/users/${member.userId}/superadmin`, { enabled: true })).status).toBe(200);
    expect((await scim('PATCH', `/Users/${member.userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: true }] })).status).toBe(
      403,
    );
    expect((await scim('PUT', `/Users/${member.userId}`, { userName: 'sec-scim-later@example.com' })).status).toBe(403);
    expect((await scim('POST', '/Users', { userName: 'sec-scim-later@example.com', active: true })).status).toBe(403);
    expect((await scim('GET', `/Users/${member.userId}`)).body.active).toBe(false);
    // Deactivating stays possible.
    expect(
      (await scim('PATCH', `/Users/${member.userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] })).status,
    ).toBe(200);
  });

  it('an admin cannot reset the owner, may reset an administered admin or member, and a key obeys its role', async () => {
    const admin = await memberOf(server, owner.client, orgId, 'sec-admin@example.com', 'admin');
    const peer = await memberOf(server, owner.client, orgId, 'sec-peer-admin@example.com', 'admin');
    const member = await memberOf(server, owner.client, orgId, 'sec-member@example.com', 'member');
    for (const path of resets(orgId, owner.userId)) {
      const res = await admin.client.post(path);
      expect(res.status, path).toBe(403);
      expect(res.body.detail).toMatch(/role \(owner\) is above yours \(admin\)/);
    }
    expect((await admin.client.post(`/orgs/${orgId}/members/${peer.userId}/reset-2fa`)).status).toBe(200);
    const reset = await admin.client.post(`/orgs/${orgId}/members/${member.userId}/reset-password`);
    expect(reset.status).toBe(200);
    expect((await signIn('sec-member@example.com', reset.body.temporary_password)).res.status).toBe(200);
    expect((await owner.client.post(`/orgs/${orgId}/members/${admin.userId}/reset-2fa`)).status).toBe(200);
    const adminKey = await owner.client.post('/auth/keys', { role: 'admin', name: 'admin-key' });
    const keyClient = new Client(server, { 'X-API-Key': adminKey.body.key });
    expect((await keyClient.post(`/orgs/${orgId}/members/${owner.userId}/reset-password`)).status).toBe(403);
  });

  it("keys are bounded by the creator's effective role: an admin cannot mint an owner key", async () => {
    const admin = await memberOf(server, owner.client, orgId, 'sec-keymaker@example.com', 'admin');
    const denied = await admin.client.post('/auth/keys', { role: 'owner', name: 'escalate' });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toMatch(/above yours \(admin\)/);
    expect((await admin.client.post('/auth/keys', { role: 'admin', name: 'peer' })).status).toBe(201);
    expect((await owner.client.post('/auth/keys', { role: 'owner', name: 'owner' })).status).toBe(201);
  });

  it("a demoted admin's old session loses admin powers at once; a promotion waits for a new session", async () => {
    const demoted = await memberOf(server, owner.client, orgId, 'sec-demoted@example.com', 'admin');
    const member = await memberOf(server, owner.client, orgId, 'sec-demoted-target@example.com', 'member');
    expect((await owner.client.patch(`/orgs/${orgId}/members/${demoted.userId}`, { role: 'viewer' })).status).toBe(200);
    const key = await demoted.client.post('/auth/keys', { role: 'owner', name: 'stale' });
    expect(key.status).toBe(403);
    expect((await demoted.client.post('/auth/keys', { role: 'viewer', name: 'stale' })).status).toBe(403);
    expect((await demoted.client.post(`/orgs/${orgId}/members/${member.userId}/reset-password`)).status).toBe(403);
    expect((await demoted.client.patch(`/orgs/${orgId}/members/${member.userId}`, { role: 'admin' })).status).toBe(403);
    expect((await demoted.client.get(`/orgs/${orgId}/members`)).status).toBe(200);
    expect((await demoted.client.get('/auth/me')).body).toMatchObject({ org_id: orgId, role: 'viewer' });
    expect((await owner.client.get('/auth/keys')).body.keys.some((k: { name: string }) => k.name === 'stale')).toBe(false);

    // A promotion is not taken early: a session minted at viewer stays viewer until a new login or switch.
    const viewerSession = (await signIn('sec-demoted@example.com')).client;
    expect((await viewerSession.get('/auth/me')).body.role).toBe('viewer');
    expect((await owner.client.patch(`/orgs/${orgId}/members/${demoted.userId}`, { role: 'admin' })).status).toBe(200);
    expect((await viewerSession.get('/auth/keys')).status).toBe(403);
    expect((await viewerSession.post('/auth/session/switch', { org_id: orgId })).status).toBe(200);
    expect((await viewerSession.get('/auth/keys')).status).toBe(200);
  });

  it('MCP tools apply the lower of the role claim and the current membership role', async () => {
    const demoted = await memberOf(server, owner.client, orgId, 'sec-mcp@example.com', 'member');
    const connect = async () => {
      const client = new McpClient({ name: 'security-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { cookie: demoted.client.cookie as string } } }),
      );
      return client;
    };
    const mcp = await connect();
    const cancel = () => mcp.callTool({ name: 'cancel_job', arguments: { job_id: 'job_missing' } }) as Promise<CallToolResult>;
    expect((await cancel()).structuredContent).toMatchObject({ status: 404 });
    expect((await owner.client.patch(`/orgs/${orgId}/members/${demoted.userId}`, { role: 'viewer' })).status).toBe(200);
    const denied = await cancel();
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toMatchObject({ status: 403, detail: 'This action needs the member role' });
    const read = (await mcp.callTool({ name: 'get_job', arguments: { job_id: 'job_missing' } })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ status: 404 });
    await mcp.close();
  });

  it('GET /orgs/{org_id}: 403 for a non-member (superadmins too), 404 unknown, 200 for a member of that org', async () => {
    const outsider = await registerUser(server, 'sec-outsider@example.com', { orgName: 'Outside' });
    const res = await outsider.client.get(`/orgs/${orgId}`);
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/Not a member/);
    expect((await outsider.client.get('/orgs/org_missing')).status).toBe(404);
    expect((await bootstrap(server).get(`/orgs/${orgId}`)).status).toBe(403);
    const otherKey = await outsider.client.post('/auth/keys', { role: 'owner', name: 'outside' });
    expect((await new Client(server, { 'X-API-Key': otherKey.body.key }).get(`/orgs/${orgId}`)).status).toBe(403);
    // A member of both orgs, currently in its own: reads the other org's info at that membership.
    const both = await memberOf(server, owner.client, orgId, 'sec-both@example.com', 'viewer');
    const invite = await outsider.client.post(`/orgs/${outsider.orgId}/invites`, { email: 'sec-both@example.com', role: 'member' });
    expect((await both.client.post(`/auth/me/invitations/${invite.body.invite_id}/accept`)).status).toBe(200);
    expect((await both.client.get('/auth/me')).body.org_id).toBe(outsider.orgId);
    expect((await both.client.get(`/orgs/${orgId}`)).body).toMatchObject({ org_id: orgId, name: 'Home' });
    expect((await owner.client.patch(`/orgs/${orgId}/members/${both.userId}`, { is_active: false })).status).toBe(200);
    expect((await both.client.get(`/orgs/${orgId}`)).status).toBe(403);
  });

  it('custom-rule audit events carry target_type custom_rule', async () => {
    const created = await owner.client.post(`/orgs/${orgId}/rules`, {
      title: 'No public buckets',
      description: 'Flag public ACLs.',
      category: 'built-in-terraform',
      severity: 'HIGH',
      analyzers: ['terraform'],
    });
    expect(created.status, created.text).toBe(201);
    const feed = await owner.client.get('/metrics/audit?action=rule.create');
    const event = feed.body.events.find((e: { target_id: string }) => e.target_id === created.body.rule_id);
    expect(event).toMatchObject({ action: 'rule.create', target_type: 'custom_rule' });
  });
});
