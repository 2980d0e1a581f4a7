import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, Client, FakeClock, memberOf, registerUser, startAuthServer } from '../helpers/identity';
import { startFakeOidcProvider, type FakeOidcProvider } from '../fakes/oidc-provider';
import { ssoSignIn } from '../helpers/oidc-flows';

const SECRET = 'sso-client-secret-never-shown';

describe('SSO (OIDC) per org', () => {
  let server: TestServer;
  let idp: FakeOidcProvider;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let orgId: string;
  const clock = new FakeClock();
  const asSession = (cookie: string | null) => Object.assign(new Client(server), { cookie });

  beforeAll(async () => {
    idp = await startFakeOidcProvider();
    idp.clients.set('planwarden', SECRET);
    server = await startAuthServer({ clock, overrides: { egress: { allowlist: ['127.0.0.1'] } } });
    owner = await registerUser(server, 'sso-owner@owner.test', { orgName: 'Acme' });
    orgId = owner.orgId as string;
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
  });

  it('connection CRUD: secret write-only and sealed at rest, default_role never owner, one connection per org', async () => {
    const base = `/orgs/${orgId}/sso`;
    const body = {
      display_name: 'Acme IdP',
      issuer: idp.issuer,
      client_id: 'planwarden',
      client_secret: SECRET,
      default_role: 'member',
      allowed_domains: ['acme.test'],
    };
    expect((await owner.client.get(base)).status).toBe(404);
    expect((await owner.client.post(base, { ...body, default_role: 'owner' })).status).toBe(422);
    expect((await owner.client.post(base, { ...body, issuer: 'http://10.0.0.5/realm' })).status).toBe(422);
    const member = await memberOf(server, owner.client, orgId, 'sso-member@owner.test', 'member');
    expect((await member.client.post(base, body)).status).toBe(403);
    const created = await owner.client.post(base, body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      provider: 'oidc',
      display_name: 'Acme IdP',
      issuer: idp.issuer,
      client_id: 'planwarden',
      client_secret_set: true,
      default_role: 'member',
      allowed_domains: ['acme.test'],
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      domains: [
        {
          domain: 'acme.test',
          status: 'pending',
          verified_at: null,
          verified_by: null,
          txt_record_name: '_planwarden-challenge.acme.test',
          txt_record_value: expect.stringMatching(/^planwarden-domain-verification=[0-9a-f]{40}$/),
        },
      ],
    });
    // The rest of this file signs in through a verified acme.test (tests/api/sso-domains.test.ts covers verification).
    expect((await bootstrap(server).post(`/admin/organizations/${orgId}/sso/domains/acme.test/verify`)).body).toMatchObject({
      status: 'verified',
      verified_by: 'superadmin',
    });
    expect(created.text).not.toContain(SECRET);
    expect((await owner.client.post(base, body)).status).toBe(409);
    const stored = await server.services.engine.stores.sso.get(orgId);
    expect(stored?.client_secret_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(SECRET);

    const patched = await owner.client.patch(base, { display_name: 'Acme login' });
    expect(patched.body).toMatchObject({ display_name: 'Acme login', client_secret_set: true });
    expect(patched.text).not.toContain(SECRET);
    expect(server.services.engine.stores.box.open((await server.services.engine.stores.sso.get(orgId))!.client_secret_sealed!)).toBe(SECRET);
    const audit = await owner.client.get('/metrics/audit?action=sso.update');
    expect(audit.body.events[0]).toMatchObject({ target_type: 'sso_connection', before: { display_name: 'Acme IdP' }, after: { display_name: 'Acme login' } });
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);

    const admin = bootstrap(server);
    const summary = (await admin.get('/admin/organizations')).body.organizations.find((o: { org_id: string }) => o.org_id === orgId);
    expect(summary.sso_enabled).toBe(true);
    const detail = await admin.get(`/admin/organizations/${orgId}`);
    expect(detail.body.sso).toMatchObject({ issuer: idp.issuer, client_secret_set: true });
    expect(detail.text).not.toContain(SECRET);
  });

  it('a verified domain is held by one org only', async () => {
    const other = await registerUser(server, 'sso-other@other.test', { orgName: 'Other' });
    const base = `/orgs/${other.orgId}/sso`;
    const body = { display_name: 'Other', issuer: idp.issuer, client_id: 'other', allowed_domains: ['other.test', 'ACME.test'] };
    expect((await other.client.post(base, body)).status).toBe(409);
    expect((await other.client.get(base)).status).toBe(404); // nothing half-written
    expect((await other.client.post(base, { ...body, allowed_domains: ['other.test'] })).status).toBe(201);
    expect((await other.client.patch(base, { allowed_domains: ['acme.test'] })).status).toBe(409);
    expect((await owner.client.get(`/orgs/${other.orgId}/sso`)).status).toBe(404);
    expect((await new Client(server).post('/auth/sso/discover', { email: 'x@other.test' })).status).toBe(404); // pending
    expect((await bootstrap(server).post(`/admin/organizations/${other.orgId}/sso/domains/other.test/verify`)).status).toBe(200);
    expect((await new Client(server).post('/auth/sso/discover', { email: 'x@other.test' })).body).toEqual({ org_id: other.orgId, display_name: 'Other' });
    expect((await other.client.delete(base)).status).toBe(200);
    expect((await new Client(server).post('/auth/sso/discover', { email: 'x@other.test' })).status).toBe(404);
  });

  it('discover by e-mail, then start with PKCE, nonce and state in a short-lived cookie', async () => {
    const anon = new Client(server);
    expect((await anon.post('/auth/sso/discover', { email: 'Jane@ACME.test' })).body).toEqual({ org_id: orgId, display_name: 'Acme login' });
    expect((await anon.post('/auth/sso/discover', { email: 'jane@nowhere.test' })).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/auth/sso/org_missing/start`, { redirect: 'manual' })).status).toBe(404);
    const start = await fetch(`${server.url}/api/v1/auth/sso/${orgId}/start`, { redirect: 'manual' });
    expect(start.status).toBe(307);
    const to = new URL(start.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(`${idp.issuer}/authorize`);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    for (const p of ['code_challenge', 'nonce', 'state', 'redirect_uri']) expect(to.searchParams.get(p)).toBeTruthy();
    expect(start.headers.get('set-cookie')).toMatch(/^sso_state=[^;]+; Path=\/api\/v1\/auth\/sso\/callback; HttpOnly; SameSite=Lax; Max-Age=600/);
  });

  it('a new user is provisioned at default_role and lands in the dashboard with a session', async () => {
    idp.user = { sub: 'new-1', email: 'New.Person@acme.test', email_verified: true, name: 'New Person' };
    const result = await ssoSignIn(server, orgId);
    expect(result.status).toBe(307);
    expect(result.location).toBe('/overview');
    expect(result.body).toBeNull();
    const me = await asSession(result.session).get('/auth/me');
    expect(me.body).toMatchObject({ user: { email: 'new.person@acme.test', name: 'New Person', has_password: false }, org_id: orgId, role: 'member' });
    // The account is an SSO account: password endpoints answer 400.
    expect((await asSession(result.session).post('/auth/me/password', { current_password: 'x', new_password: 'long-enough-1' })).status).toBe(400);
  });

  it('links an existing local account by verified e-mail and never downgrades an existing role', async () => {
    const local = await registerUser(server, 'linked@acme.test');
    idp.user = { sub: 'linked', email: 'linked@acme.test', email_verified: true };
    const first = await ssoSignIn(server, orgId);
    expect(first.status).toBe(307);
    expect((await asSession(first.session).get('/auth/me')).body).toMatchObject({ user: { user_id: local.userId }, org_id: orgId, role: 'member' });

    const admin = await memberOf(server, owner.client, orgId, 'boss@acme.test', 'admin');
    expect((await owner.client.patch(`/orgs/${orgId}/sso`, { default_role: 'viewer' })).status).toBe(200);
    idp.user = { sub: 'boss', email: 'boss@acme.test', email_verified: true };
    const again = await ssoSignIn(server, orgId);
    expect((await asSession(again.session).get('/auth/me')).body).toMatchObject({ user: { user_id: admin.userId }, role: 'admin' });
    expect((await owner.client.patch(`/orgs/${orgId}/sso`, { default_role: 'member' })).status).toBe(200);
  });

  it('refuses a domain outside allowed_domains, an unverified e-mail and a deactivated account (403)', async () => {
    idp.user = { sub: 'outsider', email: 'someone@elsewhere.test', email_verified: true };
    expect((await ssoSignIn(server, orgId)).status).toBe(403);
    idp.user = { sub: 'unverified', email: 'unverified@acme.test', email_verified: false };
    expect((await ssoSignIn(server, orgId)).status).toBe(403);
    const gone = await registerUser(server, 'gone@acme.test');
    expect((await bootstrap(server).patch(`/admin/users/${gone.userId}`, { is_active: false })).status).toBe(200);
    idp.user = { sub: 'gone', email: 'gone@acme.test', email_verified: true };
    expect((await ssoSignIn(server, orgId)).status).toBe(403);
    expect(await server.services.engine.stores.memberships.get(orgId, gone.userId)).toBeNull();
  });

  it('refuses every tampering: state, cookie, expiry, replayed code, nonce, audience, expired or foreign-signed ID token (400)', async () => {
    idp.user = { sub: 'tamper', email: 'tamper@acme.test', email_verified: true };
    expect((await ssoSignIn(server, orgId, { state: 'forged-state' })).status).toBe(400);
    expect((await ssoSignIn(server, orgId, { cookie: null })).status).toBe(400);
    expect((await ssoSignIn(server, orgId, { cookie: 'sso_state=eyJhbGciOiJIUzI1NiJ9.e30.AAAA' })).status).toBe(400);
    expect((await ssoSignIn(server, orgId, { advance: () => clock.advance(11 * 60_000) })).status).toBe(400);
    for (const knob of ['wrongNonce', 'wrongAudience', 'expired', 'badSignature', 'wrongIssuer'] as const) {
      idp.next = { [knob]: true };
      const result = await ssoSignIn(server, orgId);
      expect(result.status, knob).toBe(400);
      expect(result.session, knob).toBeNull();
    }
    expect(await server.services.engine.stores.users.byEmail('tamper@acme.test')).toBeNull();
    // A replayed code is refused by the provider (the first redemption signed in).
    expect((await ssoSignIn(server, orgId, { replay: true })).status).toBe(400);
    // The untampered flow still works afterwards.
    expect((await ssoSignIn(server, orgId)).status).toBe(307);
  });

  it("an SSO session satisfies the org's require_2fa; a password session without 2FA does not", async () => {
    const pw = await memberOf(server, owner.client, orgId, 'pw-user@acme.test', 'member');
    expect((await bootstrap(server).patch(`/admin/organizations/${orgId}/2fa-policy`, { require_2fa: true })).status).toBe(200);
    expect((await pw.client.get(`/orgs/${orgId}/members`)).status).toBe(403);
    idp.user = { sub: 'pw-user', email: 'pw-user@acme.test', email_verified: true };
    const sso = asSession((await ssoSignIn(server, orgId)).session);
    expect((await sso.get(`/orgs/${orgId}/members`)).status).toBe(200);
    expect((await sso.get('/auth/me')).body.mfa_required).toBe(false);
    expect((await bootstrap(server).patch(`/admin/organizations/${orgId}/2fa-policy`, { require_2fa: false })).status).toBe(200);
  });

  it('an unreachable issuer answers 502; a disabled connection 404', async () => {
    const down = await registerUser(server, 'down@down.test', { orgName: 'Down' });
    expect((await down.client.post(`/orgs/${down.orgId}/sso`, { display_name: 'Down', issuer: 'http://127.0.0.1:1/realm', client_id: 'x' })).status).toBe(201);
    expect((await fetch(`${server.url}/api/v1/auth/sso/${down.orgId}/start`, { redirect: 'manual' })).status).toBe(502);
    expect((await down.client.patch(`/orgs/${down.orgId}/sso`, { enabled: false })).status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/auth/sso/${down.orgId}/start`, { redirect: 'manual' })).status).toBe(404);
    const summary = (await bootstrap(server).get('/admin/organizations')).body.organizations.find((o: { org_id: string }) => o.org_id === down.orgId);
    expect(summary.sso_enabled).toBe(false);
  });
});
