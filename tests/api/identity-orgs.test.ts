import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, Client, memberOf, registerUser, startAuthServer } from '../helpers/identity';

describe('organizations, members, keys, teams and invitations', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let viewer: Awaited<ReturnType<typeof memberOf>>;
  let admin: Awaited<ReturnType<typeof memberOf>>;
  let outsider: Awaited<ReturnType<typeof registerUser>>;
  let orgId: string;
  const anon = () => new Client(server);

  beforeAll(async () => {
    server = await startAuthServer({ overrides: { server: { trust_proxy: true } } });
    owner = await registerUser(server, 'o-owner@example.com', { orgName: 'Org One' });
    orgId = owner.orgId as string;
    viewer = await memberOf(server, owner.client, orgId, 'o-viewer@example.com', 'viewer');
    admin = await memberOf(server, owner.client, orgId, 'o-admin@example.com', 'admin');
    outsider = await registerUser(server, 'o-out@example.com', { orgName: 'Org Two' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('org info: 401 / 403 not a member / 404 unknown / 200 for any member', async () => {
    expect((await anon().get(`/orgs/${orgId}`)).status).toBe(401);
    expect((await outsider.client.get(`/orgs/${orgId}`)).status).toBe(403);
    expect((await outsider.client.get('/orgs/org_missing')).status).toBe(404);
    const info = await viewer.client.get(`/orgs/${orgId}`);
    expect(info.body).toEqual({
      org_id: orgId,
      name: 'Org One',
      plan_tier: 'free',
      quota: { monthly_budget_usd: null },
      report_link_ttl_hours: expect.any(Number),
      invite_link_ttl_hours: 168,
      created_at: expect.any(String),
    });
    expect((await owner.client.post('/orgs', { name: '' })).status).toBe(422);
  });

  it('members: list, add, patch, delete with every guardrail', async () => {
    const base = `/orgs/${orgId}/members`;
    expect((await anon().get(base)).status).toBe(401);
    expect((await outsider.client.get(base)).status).toBe(404);
    const list = await viewer.client.get(base);
    expect(list.body.members.find((m: { email: string }) => m.email === 'o-owner@example.com')).toMatchObject({
      role: 'owner',
      is_active: true,
      account_active: true,
      teams: [],
    });
    expect((await viewer.client.post(base, { email: 'x@example.com', role: 'member' })).status).toBe(403);
    expect((await admin.client.post(base, { email: 'x@example.com', role: 'owner' })).status).toBe(422);
    expect((await admin.client.post(base, { email: 'nobody@example.com', role: 'member' })).status).toBe(404);
    expect((await admin.client.post(base, { email: 'o-viewer@example.com', role: 'member' })).status).toBe(409);
    const extra = await registerUser(server, 'o-extra@example.com');
    const added = await admin.client.post(base, { email: 'o-extra@example.com', role: 'member' });
    expect(added).toMatchObject({ status: 201, body: { user_id: extra.userId, org_id: orgId, role: 'member' } });

    expect((await admin.client.patch(`${base}/${extra.userId}`, { role: 'owner' })).status).toBe(422);
    expect((await admin.client.patch(`${base}/${extra.userId}`, { role: 'bogus' })).status).toBe(422);
    expect((await admin.client.patch(`${base}/${admin.userId}`, { role: 'viewer' })).status).toBe(400);
    expect((await admin.client.patch(`${base}/${owner.userId}`, { role: 'admin' })).status).toBe(409);
    expect((await admin.client.patch(`${base}/${owner.userId}`, { is_active: false })).status).toBe(409);
    expect((await admin.client.delete(`${base}/${owner.userId}`)).status).toBe(409);
    expect((await admin.client.delete(`${base}/${admin.userId}`)).status).toBe(400);
    expect((await admin.client.patch(`${base}/usr_missing`, { role: 'viewer' })).status).toBe(404);
    expect((await outsider.client.delete(`${base}/${extra.userId}`)).status).toBe(404);
    const patched = await admin.client.patch(`${base}/${extra.userId}`, { role: 'admin' });
    expect(patched.body).toMatchObject({ user_id: extra.userId, role: 'admin', email: 'o-extra@example.com' });
    expect((await owner.client.post(`/orgs/${orgId}/leave`)).status).toBe(409);
    expect((await admin.client.delete(`${base}/${extra.userId}`)).status).toBe(204);
    expect((await admin.client.delete(`${base}/${extra.userId}`)).status).toBe(404);
  });

  it('leave: 404 for a path org that is not the current one, 403 for a key, then lands in the next org', async () => {
    const leaver = await memberOf(server, owner.client, orgId, 'o-leaver@example.com', 'member');
    expect((await leaver.client.post('/orgs/org_other/leave')).status).toBe(404);
    expect((await bootstrap(server).post(`/orgs/${orgId}/leave`)).status).toBe(403);
    const left = await leaver.client.post(`/orgs/${orgId}/leave`);
    expect(left.body).toEqual({ left_org_id: orgId, org_id: null, role: null });
    expect((await leaver.client.get('/auth/me')).body.org_id).toBeNull();
  });

  it('service-account keys: raw key once, hash only, allowlist 403, revoked 401, other org 404', async () => {
    expect((await anon().post('/auth/keys', { role: 'member' })).status).toBe(401);
    expect((await viewer.client.post('/auth/keys', { role: 'member' })).status).toBe(403);
    expect((await admin.client.post('/auth/keys', { role: 'member', ip_allowlist: ['not-an-ip'] })).status).toBe(422);
    expect((await admin.client.post('/auth/keys', { role: 'boss' })).status).toBe(422);
    const created = await admin.client.post('/auth/keys', { role: 'member', name: 'ci', ip_allowlist: ['203.0.113.0/24', '198.51.100.9'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key_id: expect.any(String), key: expect.any(String), role: 'member', name: 'ci' });
    const key = created.body.key as string;
    const list = await admin.client.get('/auth/keys');
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.keys[0]).not.toHaveProperty('key');
    expect(list.body.keys[0]).not.toHaveProperty('key_hash');

    const fromInside = new Client(server, { 'X-API-Key': key, 'X-Forwarded-For': '203.0.113.40, 10.0.0.1' });
    expect((await fromInside.get('/auth/me')).body).toMatchObject({ user: null, org_id: orgId, role: 'member' });
    expect((await new Client(server, { 'X-Forwarded-For': '198.51.100.9' }).get(`/auth/me?api_key=${key}`)).status).toBe(200);
    expect((await new Client(server, { 'X-API-Key': key, 'X-Forwarded-For': '10.0.0.1, 203.0.113.40' }).get('/auth/me')).status).toBe(403);
    expect((await new Client(server, { 'X-API-Key': key }).get('/auth/me')).status).toBe(403);

    const open = await admin.client.post('/auth/keys', { role: 'viewer' });
    const keyClient = new Client(server, { 'X-API-Key': open.body.key });
    expect((await keyClient.get(`/orgs/${orgId}/members`)).status).toBe(200);
    expect((await keyClient.post('/auth/keys', {})).status).toBe(403);
    expect((await outsider.client.delete(`/auth/keys/${open.body.key_id}`)).status).toBe(404);
    expect((await admin.client.delete(`/auth/keys/${open.body.key_id}`)).status).toBe(200);
    expect((await keyClient.get(`/orgs/${orgId}/members`)).status).toBe(401);
    expect((await new Client(server, { 'X-API-Key': 'pwk_unknown' }).get('/auth/me')).status).toBe(401);
    expect((await admin.client.get('/auth/keys')).body.keys.find((k: { key_id: string }) => k.key_id === open.body.key_id).is_active).toBe(false);
  });

  it('teams and team members', async () => {
    const base = `/orgs/${orgId}/teams`;
    expect((await anon().get(base)).status).toBe(401);
    expect((await viewer.client.post(base, { name: 'Ops' })).status).toBe(403);
    expect((await admin.client.post(base, { name: '' })).status).toBe(422);
    expect((await outsider.client.get(base)).status).toBe(404);
    const a = await admin.client.post(base, { name: 'Platform Ops' });
    const b = await admin.client.post(base, { name: 'Platform Ops' });
    expect(a.body).toMatchObject({ team_id: 'platform-ops', org_id: orgId, name: 'Platform Ops', created_by: admin.userId });
    expect(b.body.team_id).toBe('platform-ops-2');
    expect((await viewer.client.get(base)).body.teams).toHaveLength(2);
    expect((await viewer.client.get(`${base}/nope`)).status).toBe(404);
    expect((await admin.client.patch(`${base}/platform-ops`, { name: 'Platform' })).body).toMatchObject({ team_id: 'platform-ops', name: 'Platform' });
    const add = await admin.client.post(`${base}/platform-ops/members`, { user_id: viewer.userId });
    expect(add.status).toBe(201);
    expect((await admin.client.post(`${base}/platform-ops/members`, { user_id: viewer.userId })).status).toBe(409);
    expect((await admin.client.post(`${base}/platform-ops/members`, { user_id: outsider.userId })).status).toBe(404);
    expect((await admin.client.post(`${base}/platform-ops/members`, {})).status).toBe(422);
    const members = await viewer.client.get(`${base}/platform-ops/members`);
    expect(members.body.members).toEqual([{ user_id: viewer.userId, email: 'o-viewer@example.com', added_at: expect.any(String) }]);
    const list = await viewer.client.get(`/orgs/${orgId}/members`);
    expect(list.body.members.find((m: { user_id: string }) => m.user_id === viewer.userId).teams).toEqual(['Platform']);
    expect((await admin.client.delete(`${base}/platform-ops/members/${admin.userId}`)).status).toBe(404);
    expect((await admin.client.delete(`${base}/platform-ops-2`)).status).toBe(204);
    expect((await admin.client.delete(`${base}/platform-ops`)).status).toBe(204);
    expect((await viewer.client.get(`/orgs/${orgId}/members`)).status).toBe(200);
  });

  it('invitations: open and addressed, preview, accept, revoke, list', async () => {
    const base = `/orgs/${orgId}/invites`;
    expect((await anon().post(base, { role: 'member' })).status).toBe(401);
    expect((await viewer.client.post(base, { role: 'member' })).status).toBe(403);
    expect((await admin.client.post(base, { role: 'owner' })).status).toBe(422);
    expect((await outsider.client.post(base, { role: 'member' })).status).toBe(404);
    const open = await admin.client.post(base, { role: 'member' });
    expect(open.body).toMatchObject({
      invite_id: expect.any(String),
      token: expect.any(String),
      join_url: expect.stringContaining('/invite/'),
      role: 'member',
      email: null,
    });
    const addressed = await admin.client.post(base, { role: 'viewer', email: 'Invitee@Example.com' });
    expect(addressed.body.email).toBe('invitee@example.com');

    const preview = await anon().get(`/invite/${addressed.body.token}`);
    expect(preview.body).toEqual({ org_name: 'Org One', role: 'viewer', expires_at: expect.any(String), addressed: true });
    expect((await anon().get('/invite/unknown-token')).status).toBe(404);

    const stranger = await registerUser(server, 'stranger@example.com');
    expect((await stranger.client.post(`/invite/${addressed.body.token}/accept`)).status).toBe(403);
    expect((await anon().post(`/invite/${open.body.token}/accept`)).status).toBe(401);
    expect((await bootstrap(server).post(`/invite/${open.body.token}/accept`)).status).toBe(401);
    const joined = await stranger.client.post(`/invite/${open.body.token}/accept`);
    expect(joined.body).toEqual({ org_id: orgId, role: 'member' });
    expect((await stranger.client.get('/auth/me')).body.org_id).toBe(orgId);

    const invitee = await registerUser(server, 'invitee@example.com');
    const pending = await invitee.client.get('/auth/me/invitations');
    expect(pending.body).toEqual([
      { invite_id: addressed.body.invite_id, org_name: 'Org One', role: 'viewer', created_at: expect.any(String), expires_at: expect.any(String) },
    ]);
    expect((await stranger.client.post(`/auth/me/invitations/${addressed.body.invite_id}/accept`)).status).toBe(404);
    const accepted = await invitee.client.post(`/auth/me/invitations/${addressed.body.invite_id}/accept`);
    expect(accepted.body).toEqual({ org_id: orgId, role: 'viewer' });
    expect((await invitee.client.get('/auth/me/invitations')).body).toEqual([]);

    const revoked = await admin.client.post(base, { role: 'member' });
    expect((await admin.client.delete(`${base}/${revoked.body.invite_id}`)).status).toBe(204);
    expect((await anon().get(`/invite/${revoked.body.token}`)).status).toBe(404);
    expect((await admin.client.delete(`${base}/inv_missing`)).status).toBe(404);
    const list = await admin.client.get(base);
    expect(list.body.invites.length).toBeGreaterThanOrEqual(3);
    expect(list.body.invites.find((i: { invite_id: string }) => i.invite_id === revoked.body.invite_id).revoked).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain(open.body.token);
  });

  it('lock answers 423 on org-scoped routes while login and /auth/me still work; 2FA policy answers 403', async () => {
    const boot = bootstrap(server);
    const org = await registerUser(server, 'lock-owner@example.com', { orgName: 'Lockable' });
    expect((await boot.patch(`/admin/organizations/${org.orgId}/lock`, { locked: true })).status).toBe(200);
    expect((await org.client.get(`/orgs/${org.orgId}/members`)).status).toBe(423);
    const relog = new Client(server);
    expect((await relog.post('/auth/session', { email: 'lock-owner@example.com', password: 'correct-horse-1' })).status).toBe(200);
    expect((await relog.get('/auth/me')).body).toMatchObject({ organization_locked: true, mfa_required: false });
    await boot.patch(`/admin/organizations/${org.orgId}/lock`, { locked: false });
    expect((await relog.get(`/orgs/${org.orgId}/members`)).status).toBe(200);
    await boot.patch(`/admin/organizations/${org.orgId}/2fa-policy`, { require_2fa: true });
    expect((await relog.get(`/orgs/${org.orgId}/members`)).status).toBe(403);
    expect((await relog.get('/auth/me')).body).toMatchObject({ organization_locked: false, mfa_required: true });
    const key = await owner.client.post('/auth/keys', { role: 'viewer' });
    expect((await boot.patch(`/admin/organizations/${orgId}/2fa-policy`, { require_2fa: true })).status).toBe(200);
    expect((await new Client(server, { 'X-API-Key': key.body.key }).get(`/orgs/${orgId}/members`)).status).toBe(200);
    await boot.patch(`/admin/organizations/${orgId}/2fa-policy`, { require_2fa: false });
    expect((await viewer.client.patch('/admin/organizations/x/lock', { locked: true })).status).toBe(403);
    expect((await boot.patch('/admin/organizations/org_missing/lock', { locked: true })).status).toBe(404);
    expect((await boot.patch(`/admin/organizations/${orgId}/lock`, { locked: 'yes' })).status).toBe(422);
  });

  it('admin surface: org summaries, the member mirror with the same guardrails, audit feeds', async () => {
    const boot = bootstrap(server);
    expect((await viewer.client.get('/admin/organizations')).status).toBe(403);
    expect((await anon().get('/admin/organizations')).status).toBe(401);
    const all = await boot.get('/admin/organizations');
    const mine = all.body.organizations.find((o: { org_id: string }) => o.org_id === orgId);
    expect(mine).toMatchObject({
      name: 'Org One',
      plan_tier: 'free',
      contract: null,
      member_count: expect.any(Number),
      locked: false,
      require_2fa: false,
      sso_enabled: false,
    });
    expect((await boot.get(`/admin/organizations/${orgId}`)).body).toMatchObject({ org_id: orgId, sso: null });
    expect((await boot.get('/admin/organizations/org_missing')).status).toBe(404);
    const members = await boot.get(`/admin/organizations/${orgId}/members`);
    expect(members.body.members.length).toBe(mine.member_count);
    expect((await boot.get('/admin/organizations/org_missing/members')).status).toBe(404);
    expect((await boot.patch(`/admin/organizations/${orgId}/members/${owner.userId}`, { role: 'viewer' })).status).toBe(409);
    expect((await boot.patch(`/admin/organizations/${orgId}/members/${viewer.userId}`, { role: 'owner' })).status).toBe(422);
    const mirrored = await memberOf(server, owner.client, orgId, 'o-mirror@example.com', 'member');
    expect((await boot.patch(`/admin/organizations/${orgId}/members/${mirrored.userId}`, { role: 'admin' })).body).toMatchObject({ role: 'admin' });
    expect((await boot.post(`/admin/organizations/${orgId}/members/${mirrored.userId}/reset-password`)).body.temporary_password).toEqual(expect.any(String));
    expect((await mirrored.client.get('/auth/me')).status).toBe(401);
    expect((await boot.delete(`/admin/organizations/${orgId}/members/${mirrored.userId}`)).status).toBe(204);

    const feed = await boot.get(`/admin/organizations/${orgId}/audit?action=member.remove`);
    expect(feed.body.events.find((e: { target_id: string }) => e.target_id === mirrored.userId)).toMatchObject({
      action: 'member.remove',
      target_id: mirrored.userId,
      actor_key_id: '_bootstrap',
      actor_is_superadmin: true,
    });
    const platform = await boot.get('/admin/audit?action=superadmin.grant');
    expect(platform.status).toBe(200);
    const orgOnly = await boot.get(`/admin/audit?org_id=${outsider.orgId}`);
    expect(orgOnly.body.events.every((e: { org_id: string }) => e.org_id === outsider.orgId)).toBe(true);
    expect((await boot.get('/admin/audit/export?format=csv')).headers.get('content-type')).toMatch(/text\/csv/);
  });
});
