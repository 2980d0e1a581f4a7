import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { BOOTSTRAP_KEY, bootstrap, Client, FakeClock, registerUser, startAuthServer } from '../helpers/identity';
import { startFakeOidcProvider, type FakeOidcProvider } from '../fakes/oidc-provider';
import { socialRoundTrip as roundTrip } from '../helpers/oidc-flows';

describe('social sign-in (google, microsoft)', () => {
  let server: TestServer;
  let google: FakeOidcProvider;
  let microsoft: FakeOidcProvider;
  const clock = new FakeClock();

  beforeAll(async () => {
    google = await startFakeOidcProvider();
    google.clients.set('g-client', 'g-secret');
    microsoft = await startFakeOidcProvider({ path: '/contoso-tenant/v2.0' });
    microsoft.clients.set('m-client', 'm-secret');
    const msBase = microsoft.issuer.replace('/contoso-tenant/v2.0', '');
    server = await startAuthServer({
      clock,
      overrides: {
        egress: { allowlist: ['127.0.0.1'] },
        social_login: {
          enabled: true,
          allow_signup: true,
          allow_auto_link: false,
          google_enabled: true,
          google_client_id: 'g-client',
          google_client_secret: 'g-secret',
          google_issuer: google.issuer,
          microsoft_enabled: true,
          microsoft_client_id: 'm-client',
          microsoft_client_secret: null,
          microsoft_tenant: 'contoso-tenant',
          microsoft_issuer: `${msBase}/{tenant}/v2.0`,
        },
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await google.close();
    await microsoft.close();
  });

  it('offers only providers with every switch and credential set; unknown provider 422, unusable 404', async () => {
    expect((await new Client(server).get('/auth/providers')).body).toEqual({ providers: [{ id: 'google', label: 'Google' }], allow_signup: true });
    expect((await fetch(`${server.url}/api/v1/auth/oauth/github/start`, { redirect: 'manual' })).status).toBe(422);
    expect((await fetch(`${server.url}/api/v1/auth/oauth/microsoft/start`, { redirect: 'manual' })).status).toBe(404);
  });

  it('signs up, signs in again to the same account, lands on /onboarding with a session', async () => {
    google.user = { sub: 'g-1', email: 'sam@gmail.test', email_verified: true, name: 'Sam' };
    const first = await roundTrip(server, '/auth/oauth/google/start');
    expect(first).toMatchObject({ status: 307, location: '/onboarding' });
    expect(first.authorize?.searchParams.get('code_challenge_method')).toBe('S256');
    const me = await Object.assign(new Client(server), { cookie: first.session }).get('/auth/me');
    expect(me.body.user).toMatchObject({ email: 'sam@gmail.test', has_password: false });
    const again = await roundTrip(server, '/auth/oauth/google/start');
    const me2 = await Object.assign(new Client(server), { cookie: again.session }).get('/auth/me');
    expect(me2.body.user.user_id).toBe(me.body.user.user_id);
    // A social-only account cannot unlink its only way in.
    expect((await Object.assign(new Client(server), { cookie: again.session }).delete('/auth/me/identities/google')).status).toBe(409);
  });

  it('refuses an unverified e-mail, an existing account without auto-link, and a tampered ID token, by redirect', async () => {
    google.user = { sub: 'g-2', email: 'unverified@gmail.test', email_verified: false };
    expect((await roundTrip(server, '/auth/oauth/google/start')).location).toBe('/login?oauth_error=email_unverified');
    await registerUser(server, 'taken@gmail.test');
    google.user = { sub: 'g-3', email: 'taken@gmail.test', email_verified: true };
    expect((await roundTrip(server, '/auth/oauth/google/start')).location).toBe('/login?oauth_error=account_exists');
    google.next = { wrongAudience: true };
    const spoiled = await roundTrip(server, '/auth/oauth/google/start');
    expect(spoiled.location).toMatch(/^\/login\?oauth_error=/);
    expect(spoiled.session).toBeNull();
  });

  it('a domain an org SSO connection holds verified is sent to that SSO start; a pending claim routes nobody', async () => {
    const owner = await registerUser(server, 'boss@claimed.test', { orgName: 'Claimed' });
    expect(
      (
        await owner.client.post(`/orgs/${owner.orgId}/sso`, {
          display_name: 'IdP',
          issuer: google.issuer,
          client_id: 'g-client',
          allowed_domains: ['claimed.test'],
        })
      ).status,
    ).toBe(201);
    // Pending: the existing account of the domain is not pulled into the claiming org's provider.
    google.user = { sub: 'g-boss', email: 'boss@claimed.test', email_verified: true };
    expect(await roundTrip(server, '/auth/oauth/google/start')).toMatchObject({ location: '/login?oauth_error=account_exists', session: null });
    expect((await bootstrap(server).post(`/admin/organizations/${owner.orgId}/sso/domains/claimed.test/verify`)).status).toBe(200);
    google.user = { sub: 'g-4', email: 'worker@claimed.test', email_verified: true };
    const result = await roundTrip(server, '/auth/oauth/google/start');
    expect(result.location).toBe(`/api/v1/auth/sso/${owner.orgId}/start`);
    expect(result.session).toBeNull();
  });

  it('auto-link: a second account of the same provider redirects with identity_in_use, never a JSON 409', async () => {
    server.config.social_login.allow_auto_link = true;
    try {
      await registerUser(server, 'twice@corp.test');
      google.user = { sub: 'g-twice-1', email: 'twice@corp.test', email_verified: true };
      const linked = await roundTrip(server, '/auth/oauth/google/start');
      expect(linked.location).toBe('/onboarding');
      google.user = { sub: 'g-twice-2', email: 'twice@corp.test', email_verified: true };
      expect(await roundTrip(server, '/auth/oauth/google/start')).toMatchObject({ status: 307, location: '/login?oauth_error=identity_in_use', session: null });
    } finally {
      server.config.social_login.allow_auto_link = false;
    }
  });

  it('auto-link never links a superadmin account (it links from its own account page)', async () => {
    server.config.social_login.allow_auto_link = true;
    try {
      const root = await registerUser(server, 'root@corp.test');
      expect((await bootstrap(server).post(`/admin/users/${root.userId}/superadmin`, { enabled: true })).status).toBe(200);
      google.user = { sub: 'g-root', email: 'root@corp.test', email_verified: true };
      expect(await roundTrip(server, '/auth/oauth/google/start')).toMatchObject({ location: '/login?oauth_error=account_exists', session: null });
      expect(await server.services.engine.stores.socialIdentities.forUser(root.userId)).toEqual([]);
    } finally {
      server.config.social_login.allow_auto_link = false;
    }
  });

  it('links a provider to a local account whatever its e-mail, lists and unlinks it', async () => {
    const local = await registerUser(server, 'linker@corp.test');
    google.user = { sub: 'g-5', email: 'other-address@gmail.test', email_verified: true };
    const linked = await roundTrip(server, '/auth/me/identities/google/link', local.client.cookie);
    expect(linked.location).toBe('/account?linked=google');
    expect((await local.client.get('/auth/me/identities')).body.identities).toEqual([
      { provider: 'google', email: 'other-address@gmail.test', created_at: expect.any(String) },
    ]);
    const viaGoogle = await roundTrip(server, '/auth/oauth/google/start');
    expect((await Object.assign(new Client(server), { cookie: viaGoogle.session }).get('/auth/me')).body.user.user_id).toBe(local.userId);
    expect((await local.client.delete('/auth/me/identities/google')).status).toBe(200);
    expect((await local.client.delete('/auth/me/identities/google')).status).toBe(404);
  });

  it('a TOTP account is sent to the second step, without a session', async () => {
    const local = await registerUser(server, 'totp-social@corp.test');
    const secret = (await local.client.post('/auth/me/2fa/enroll')).body.manual_entry_code as string;
    const confirm = await local.client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) });
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
    google.user = { sub: 'g-6', email: 'totp-social@gmail.test', email_verified: true };
    expect((await roundTrip(server, '/auth/me/identities/google/link', local.client.cookie)).location).toBe('/account?linked=google');
    const signIn = await roundTrip(server, '/auth/oauth/google/start');
    expect(signIn.location).toMatch(/^\/login#mfa_token=[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(signIn.session).toBeNull();
  });

  it('an invitation carried through start joins its org; configured terms must be accepted on start', async () => {
    const owner = await registerUser(server, 'inviter@corp.test', { orgName: 'Inviting' });
    const invite = await owner.client.post(`/orgs/${owner.orgId}/invites`, { role: 'member' });
    expect(invite.status).toBe(201);
    google.user = { sub: 'g-7', email: 'invitee@gmail.test', email_verified: true };
    const joined = await roundTrip(server, `/auth/oauth/google/start?invite=${encodeURIComponent(invite.body.token)}`);
    expect(joined.session).not.toBeNull();
    const me = await Object.assign(new Client(server), { cookie: joined.session }).get('/auth/me');
    expect(me.body).toMatchObject({ org_id: owner.orgId, role: 'member' });
    // The inviting org created the account, so it administers it (stewardship follows provenance);
    // a password reset still answers 400: the account has no local password.
    const reset2fa = await owner.client.post(`/orgs/${owner.orgId}/members/${me.body.user.user_id}/reset-2fa`);
    expect(reset2fa.status).toBe(200);
    expect((await owner.client.post(`/orgs/${owner.orgId}/members/${me.body.user.user_id}/reset-password`)).status).toBe(400);

    server.config.registration.terms_version = 'v2';
    server.config.registration.terms_url = 'https://example.com/terms';
    try {
      google.user = { sub: 'g-8', email: 'terms@gmail.test', email_verified: true };
      const refused = await roundTrip(server, '/auth/oauth/google/start');
      expect(refused.location).toBe('/login?oauth_error=terms_required');
      expect(refused.session).toBeNull();
      const accepted = await roundTrip(server, '/auth/oauth/google/start?accepted_terms_version=v2');
      expect(accepted.location).toBe('/onboarding');
      expect(accepted.session).not.toBeNull();
    } finally {
      server.config.registration.terms_version = null;
      server.config.registration.terms_url = null;
    }
  });

  it('the superadmin round trip ignores enable flags, creates nothing and is audited; microsoft honours its tenant', async () => {
    const boot = bootstrap(server);
    const adminGet = (path: string) => fetch(`${server.url}/api/v1${path}`, { redirect: 'manual', headers: { 'x-api-key': BOOTSTRAP_KEY } });
    google.user = { sub: 'g-test', email: 'tester@gmail.test', email_verified: true };
    const start = await adminGet('/admin/social-login/google/test');
    expect(start.status).toBe(307);
    const state = start.headers.get('set-cookie')!.split(';')[0];
    const back = (await fetch(start.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!;
    const done = await fetch(back, { redirect: 'manual', headers: { cookie: state } });
    expect(done.headers.get('location')).toBe('/admin/settings/sign-in?tab=google&test=ok&email=tester%40gmail.test&live=1');
    expect(await server.services.engine.stores.users.byEmail('tester@gmail.test')).toBeNull();
    expect((await boot.get('/admin/audit?action=social_login.test')).body.events).toHaveLength(1);
    // microsoft has no secret: not offered, and its test lands on the settings page saying so; its issuer carries the tenant.
    const unconfigured = await adminGet('/admin/social-login/microsoft/test');
    expect(unconfigured.status).toBe(307);
    expect(unconfigured.headers.get('location')).toBe('/admin/settings/sign-in?tab=microsoft&test=not_configured');
    expect(unconfigured.headers.get('set-cookie')).toBeNull();
    server.config.social_login.microsoft_client_secret = 'm-secret';
    const ms = await adminGet('/admin/social-login/microsoft/test');
    expect(ms.headers.get('location')).toContain(`${microsoft.issuer}/authorize`);
    expect(microsoft.issuer).toContain('/contoso-tenant/v2.0');
    server.config.social_login.microsoft_client_secret = null;
  });
});
