import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, Client, FakeClock, memberOf, registerUser, startAuthServer } from '../helpers/identity';

describe('registration, login and sessions', () => {
  let server: TestServer;
  const clock = new FakeClock();
  beforeAll(async () => {
    server = await startAuthServer({ clock, overrides: { session: { access_ttl_minutes: 60 } } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('registers in three modes and reports the options', async () => {
    const options = await new Client(server).get('/auth/registration-options');
    expect(options.body).toEqual({ allow_public_org_creation: true });
    const owner = await registerUser(server, 'Owner@Example.com', { orgName: 'Acme' });
    expect(owner.role).toBe('owner');
    expect(owner.client.cookie).toMatch(/^mcp_session=/);
    const orgless = await registerUser(server, 'solo@example.com');
    expect(orgless.orgId).toBeNull();
    expect(orgless.role).toBeNull();
    const me = await orgless.client.get('/auth/me');
    expect(me.body).toMatchObject({ org_id: null, role: null, is_superadmin: false, organization_locked: false, mfa_required: false });
    expect(me.body.user).toMatchObject({ email: 'solo@example.com', has_password: true, two_factor_enabled: false });
    const invite = await owner.client.post(`/orgs/${owner.orgId}/invites`, { role: 'viewer' });
    expect(invite.status).toBe(201);
    const invited = await registerUser(server, 'invited@example.com', { inviteToken: invite.body.token });
    expect(invited).toMatchObject({ orgId: owner.orgId, role: 'viewer' });
    const again = await new Client(server).post('/auth/register', { email: 'OWNER@example.com', password: 'another-pass-1' });
    expect(again.status).toBe(409);
    const unknownInvite = await new Client(server).post('/auth/register', { email: 'x@example.com', password: 'another-pass-1', invite_token: 'nope' });
    expect(unknownInvite.status).toBe(404);
    const short = await new Client(server).post('/auth/register', { email: 'y@example.com', password: 'short' });
    expect(short.status).toBe(422);
  });

  it("an invitation expires after the org's invite_link_ttl_hours (168)", async () => {
    const owner = await registerUser(server, 'ttl-owner@example.com', { orgName: 'Ttl' });
    const invite = await owner.client.post(`/orgs/${owner.orgId}/invites`, { role: 'member' });
    expect(invite.body.expires_at).toBe(new Date(clock.current.getTime() + 168 * 3_600_000).toISOString());
    expect((await new Client(server).get(`/invite/${invite.body.token}`)).status).toBe(200);
    clock.advance(169 * 3_600_000);
    try {
      expect((await new Client(server).get(`/invite/${invite.body.token}`)).status).toBe(404);
      const late = await new Client(server).post('/auth/register', { email: 'late@example.com', password: 'correct-horse-1', invite_token: invite.body.token });
      expect(late.status).toBe(404);
    } finally {
      clock.advance(-169 * 3_600_000);
    }
  });

  it('logs in with a password; 401 for a bad one; the session expires with the clock', async () => {
    await registerUser(server, 'login@example.com', { orgName: 'Login org' });
    const c = new Client(server);
    expect((await c.post('/auth/session', { email: 'login@example.com', password: 'wrong-password' })).status).toBe(401);
    const ok = await c.post('/auth/session', { email: 'LOGIN@example.com', password: 'correct-horse-1' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ role: 'owner', is_superadmin: false, user: { email: 'login@example.com' } });
    expect(ok.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect((await c.get('/auth/me')).status).toBe(200);
    clock.advance(61 * 60_000);
    expect((await c.get('/auth/me')).status).toBe(401);
    clock.advance(-61 * 60_000);
    expect((await c.get('/auth/me')).status).toBe(200);
    expect((await c.post('/auth/logout')).status).toBe(200);
    expect(c.cookie).toBeNull();
    expect((await c.get('/auth/me')).status).toBe(401);
  });

  it('TOTP with a fixed clock: enroll, confirm, mfa_token login, a recovery code works once, disable', async () => {
    const { client } = await registerUser(server, 'totp@example.com', { orgName: 'Totp org' });
    const enroll = await client.post('/auth/me/2fa/enroll');
    expect(enroll.status).toBe(200);
    const secret = enroll.body.manual_entry_code as string;
    expect(enroll.body.secret_provisioning_uri).toMatch(/^otpauth:\/\/totp\//);
    expect((await client.post('/auth/me/2fa/confirm', { code: '000000' === totpAt(secret, clock.now()) ? '111111' : '000000' })).status).toBe(401);
    const confirm = await client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) });
    expect(confirm.status).toBe(200);
    const codes = confirm.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    // The confirming code is spent (RFC 6238 §5.2): sign in with the next step's code.
    clock.advance(30_000);
    const c = new Client(server);
    const step1 = await c.post('/auth/session', { email: 'totp@example.com', password: 'correct-horse-1' });
    expect(step1.body).toEqual({ mfa_token: expect.any(String), methods: expect.arrayContaining(['totp']) });
    expect(c.cookie).toBeNull();
    expect((await c.post('/auth/session/2fa', { mfa_token: step1.body.mfa_token, code: '12345' })).status).toBe(401);
    const step2 = await c.post('/auth/session/2fa', { mfa_token: step1.body.mfa_token, code: totpAt(secret, clock.now()) });
    expect(step2.status).toBe(200);
    expect(step2.body.user.two_factor_enabled).toBe(true);

    const r1 = await new Client(server).post('/auth/session', { email: 'totp@example.com', password: 'correct-horse-1' });
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: r1.body.mfa_token, code: codes[0] })).status).toBe(200);
    const r2 = await new Client(server).post('/auth/session', { email: 'totp@example.com', password: 'correct-horse-1' });
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: r2.body.mfa_token, code: codes[0] })).status).toBe(401);
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: r2.body.mfa_token, code: codes[1] })).status).toBe(200);

    clock.advance(10 * 60_000);
    expect((await new Client(server).post('/auth/session/2fa', { mfa_token: r2.body.mfa_token, code: totpAt(secret, clock.now()) })).status).toBe(401);
    clock.advance(-10 * 60_000);

    expect((await client.post('/auth/me/2fa/disable', { current_password: 'nope-nope-nope' })).status).toBe(401);
    expect((await client.post('/auth/me/2fa/disable', { current_password: 'correct-horse-1' })).status).toBe(200);
    expect((await client.post('/auth/me/2fa/confirm', { code: '123456' })).status).toBe(400);
    clock.advance(-30_000);
  });

  it('profile, org list, switch and API-key principals on human endpoints', async () => {
    const a = await registerUser(server, 'multi@example.com', { orgName: 'First' });
    const second = await a.client.post('/orgs', { name: 'Second' });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ name: 'Second', role: 'owner' });
    const orgs = await a.client.get('/auth/me/organizations');
    expect(orgs.body.map((o: { name: string }) => o.name).sort()).toEqual(['First', 'Second']);
    const sw = await a.client.post('/auth/session/switch', { org_id: second.body.org_id });
    expect(sw.body.org_id).toBe(second.body.org_id);
    expect((await a.client.post('/auth/session/switch', { org_id: 'org_unknown' })).status).toBe(403);
    const relog = await new Client(server).post('/auth/session', { email: 'multi@example.com', password: 'correct-horse-1' });
    expect(relog.body.org_id).toBe(second.body.org_id);
    const patched = await a.client.patch('/auth/me', { name: 'Multi' });
    expect(patched.body).toMatchObject({ name: 'Multi', email: 'multi@example.com' });
    const boot = bootstrap(server);
    expect((await boot.patch('/auth/me', { name: 'x' })).status).toBe(400);
    expect((await boot.post('/orgs', { name: 'x' })).status).toBe(403);
    const me = await boot.get('/auth/me');
    expect(me.body).toMatchObject({ user: null, org_id: 'default', role: 'owner', is_superadmin: true });
  });

  it('public org creation can be switched off', async () => {
    server.config.registration.allow_public_org_creation = false;
    try {
      const res = await new Client(server).post('/auth/register', { email: 'closed@example.com', password: 'correct-horse-1', org_name: 'Closed' });
      expect(res.status).toBe(403);
      const { client } = await registerUser(server, 'closed2@example.com');
      expect((await client.post('/orgs', { name: 'Nope' })).status).toBe(403);
    } finally {
      server.config.registration.allow_public_org_creation = true;
    }
  });

  it('terms: 400 without the current version when required', async () => {
    server.config.registration.terms_version = 'v2';
    server.config.registration.terms_url = 'https://example.com/terms';
    try {
      const options = await new Client(server).get('/auth/registration-options');
      expect(options.body.terms).toMatchObject({ version: 'v2' });
      const c = new Client(server);
      expect((await c.post('/auth/register', { email: 't@example.com', password: 'correct-horse-1' })).status).toBe(400);
      expect((await c.post('/auth/register', { email: 't@example.com', password: 'correct-horse-1', accepted_terms_version: 'v1' })).status).toBe(400);
      expect((await c.post('/auth/register', { email: 't@example.com', password: 'correct-horse-1', accepted_terms_version: 'v2' })).status).toBe(201);
    } finally {
      server.config.registration.terms_version = null;
      server.config.registration.terms_url = null;
    }
  });
});

describe('every session-revocation trigger', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  const clock = new FakeClock();
  beforeAll(async () => {
    server = await startAuthServer({ clock });
    owner = await registerUser(server, 'rev-owner@example.com', { orgName: 'Revocations' });
  });
  afterAll(async () => {
    await server.close();
  });

  async function victim(email: string) {
    const user = await memberOf(server, owner.client, owner.orgId as string, email, 'member');
    const other = new Client(server);
    expect((await other.post('/auth/session', { email, password: 'correct-horse-1' })).status).toBe(200);
    expect((await user.client.get('/auth/me')).status).toBe(200);
    return { ...user, other };
  }

  it('password change revokes the other sessions and spares the caller', async () => {
    const v = await victim('pw-change@example.com');
    expect((await v.client.post('/auth/me/password', { current_password: 'wrong-one!', new_password: 'brand-new-pass' })).status).toBe(401);
    expect((await v.client.post('/auth/me/password', { current_password: 'correct-horse-1', new_password: 'short' })).status).toBe(422);
    const changed = await v.client.post('/auth/me/password', { current_password: 'correct-horse-1', new_password: 'brand-new-pass' });
    expect(changed.status).toBe(200);
    expect((await v.client.get('/auth/me')).status).toBe(200);
    expect((await v.other.get('/auth/me')).status).toBe(401);
    expect((await new Client(server).post('/auth/session', { email: 'pw-change@example.com', password: 'brand-new-pass' })).status).toBe(200);
  });

  it('org password reset returns a temporary password once and ends the sessions', async () => {
    const v = await victim('pw-reset@example.com');
    const reset = await owner.client.post(`/orgs/${owner.orgId}/members/${v.userId}/reset-password`);
    expect(reset.status).toBe(200);
    expect(reset.body.temporary_password).toMatch(/^\S{8,}$/);
    expect((await v.client.get('/auth/me')).status).toBe(401);
    expect((await v.other.get('/auth/me')).status).toBe(401);
    expect((await new Client(server).post('/auth/session', { email: 'pw-reset@example.com', password: reset.body.temporary_password })).status).toBe(200);
  });

  it('org 2FA reset (both spellings) ends the sessions', async () => {
    for (const spelling of ['reset-2fa', '2fa-reset']) {
      const v = await victim(`tfa-${spelling}@example.com`);
      const res = await owner.client.post(`/orgs/${owner.orgId}/members/${v.userId}/${spelling}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ detail: expect.any(String) });
      expect((await v.client.get('/auth/me')).status).toBe(401);
    }
  });

  it('admin deactivation, admin resets and the superadmin grant end every session', async () => {
    const boot = bootstrap(server);
    const deactivated = await victim('deact@example.com');
    const patched = await boot.patch(`/admin/users/${deactivated.userId}`, { is_active: false });
    expect(patched.body).toMatchObject({ is_active: false });
    expect((await deactivated.client.get('/auth/me')).status).toBe(401);
    expect((await new Client(server).post('/auth/session', { email: 'deact@example.com', password: 'correct-horse-1' })).status).toBe(401);

    const pw = await victim('admin-pw@example.com');
    expect((await boot.post(`/admin/users/${pw.userId}/reset-password`)).status).toBe(200);
    expect((await pw.client.get('/auth/me')).status).toBe(401);

    const tfa = await victim('admin-tfa@example.com');
    expect((await boot.post(`/admin/users/${tfa.userId}/2fa-reset`)).status).toBe(200);
    expect((await tfa.client.get('/auth/me')).status).toBe(401);

    const sa = await victim('grant@example.com');
    const grant = await boot.post(`/admin/users/${sa.userId}/superadmin`, { enabled: true });
    expect(grant.body).toEqual({ user_id: sa.userId, is_superadmin: true });
    expect((await sa.client.get('/auth/me')).status).toBe(401);
    const relog = await sa.other.post('/auth/session', { email: 'grant@example.com', password: 'correct-horse-1' });
    expect(relog.body.is_superadmin).toBe(true);
  });

  it('deactivating a membership blocks only that org, on the next request', async () => {
    const v = await victim('membership@example.com');
    expect((await v.client.get(`/orgs/${owner.orgId}/members`)).status).toBe(200);
    expect((await owner.client.patch(`/orgs/${owner.orgId}/members/${v.userId}`, { is_active: false })).status).toBe(200);
    expect((await v.client.get(`/orgs/${owner.orgId}/members`)).status).toBe(403);
    expect((await v.client.get('/auth/me')).status).toBe(200);
  });
});
