/**
 * SSO domains count only once verified (docs/decisions.md "SSO domain verification", "SSO account
 * linking"): the account-takeover chain through a self-declared `allowed_domains`, DNS TXT
 * verification against a real DNS server on 127.0.0.1 (tests/fakes/dns-server.ts), a superadmin's
 * approval, discover and social routing, and the scope of an SSO session's 2FA exemption.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config/config';
import { totpAt } from '../../server/src/auth/totp';
import type { TestServer } from '../helpers/test-server';
import { addedByEmail, bootstrap, Client, FakeClock, memberOf, registerUser, startAuthServer } from '../helpers/identity';
import { socialRoundTrip, ssoSignIn } from '../helpers/oidc-flows';
import { startFakeDnsServer, type FakeDnsServer } from '../fakes/dns-server';
import { startFakeOidcProvider, type FakeOidcProvider } from '../fakes/oidc-provider';

const CHALLENGE = '_planwarden-challenge.victimcorp.test';

describe('SSO domain verification', () => {
  let server: TestServer;
  let idp: FakeOidcProvider;
  let google: FakeOidcProvider;
  let dns: FakeDnsServer;
  const clock = new FakeClock();
  const asSession = (cookie: string | null) => Object.assign(new Client(server), { cookie });
  const connection = (domains: string[]) => ({
    display_name: 'Corp login',
    issuer: idp.issuer,
    client_id: 'planwarden',
    client_secret: 'corp-secret',
    allowed_domains: domains,
  });
  /** The TXT value of `domain` in the org's connection, as GET /orgs/{org_id}/sso presents it. */
  const txtValueOf = async (client: Client, orgId: string, domain: string) =>
    ((await client.get(`/orgs/${orgId}/sso`)).body.domains as { domain: string; txt_record_value: string }[]).find((d) => d.domain === domain)!
      .txt_record_value;

  let alice: Awaited<ReturnType<typeof registerUser>>;
  let attacker: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    idp = await startFakeOidcProvider();
    idp.clients.set('planwarden', 'corp-secret');
    google = await startFakeOidcProvider();
    google.clients.set('g-client', 'g-secret');
    dns = await startFakeDnsServer();
    server = await startAuthServer({
      clock,
      overrides: {
        egress: { allowlist: ['127.0.0.1'] },
        sso: { dns_servers: [dns.address] },
        social_login: {
          enabled: true,
          allow_signup: true,
          google_enabled: true,
          google_client_id: 'g-client',
          google_client_secret: 'g-secret',
          google_issuer: google.issuer,
        },
      },
    });
    alice = await registerUser(server, 'alice@victimcorp.test', { orgName: 'VictimCorp' });
    attacker = await registerUser(server, 'mallory@evil.test', { orgName: 'Evil' });
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
    await google.close();
    await dns.close();
  });

  it('an org claiming a domain on its word cannot take over an existing account of it (TOTP on or off)', async () => {
    const withTotp = await registerUser(server, 'tina@victimcorp.test', { orgName: 'Tina Co' });
    const secret = (await withTotp.client.post('/auth/me/2fa/enroll')).body.manual_entry_code as string;
    expect((await withTotp.client.post('/auth/me/2fa/confirm', { code: totpAt(secret, clock.now()) })).status).toBe(200);
    const created = await attacker.client.post(`/orgs/${attacker.orgId}/sso`, connection(['victimcorp.test']));
    expect(created.status).toBe(201);

    for (const victim of [alice, withTotp]) {
      const email = victim === alice ? 'alice@victimcorp.test' : 'tina@victimcorp.test';
      idp.user = { sub: `evil-${email}`, email, email_verified: true };
      const result = await ssoSignIn(server, attacker.orgId!);
      expect(result.status, email).toBe(403);
      expect(result.session).toBeNull();
      expect(result.body.detail).toMatch(/verify the domain/);
      expect(await server.services.engine.stores.memberships.get(attacker.orgId!, victim.userId)).toBeNull();
      expect((await victim.client.get('/auth/me')).status).toBe(200); // the victim's own session is untouched
    }
    // Alice's org is untouched: still only its owner.
    const members = await alice.client.get(`/orgs/${alice.orgId}/members`);
    expect(members.body.members).toEqual([expect.objectContaining({ user_id: alice.userId, role: 'owner' })]);

    // Not discoverable, and social sign-in for the domain is not routed into the attacker's provider.
    expect((await new Client(server).post('/auth/sso/discover', { email: 'alice@victimcorp.test' })).status).toBe(404);
    google.user = { sub: 'g-alice', email: 'alice@victimcorp.test', email_verified: true };
    expect((await socialRoundTrip(server, '/auth/oauth/google/start')).location).toBe('/login?oauth_error=account_exists');
    expect(created.body.domains).toEqual([expect.objectContaining({ domain: 'victimcorp.test', status: 'pending', txt_record_name: CHALLENGE })]);
  });

  it("a pending domain still provisions NEW accounts into the connection's own org (created_account), and signs in only accounts that org created", async () => {
    idp.user = { sub: 'evil-new', email: 'newbie@victimcorp.test', email_verified: true };
    const first = await ssoSignIn(server, attacker.orgId!);
    expect(first.status).toBe(307);
    const me = (await asSession(first.session).get('/auth/me')).body;
    expect(me).toMatchObject({ org_id: attacker.orgId, role: 'member', user: { email: 'newbie@victimcorp.test' } });
    expect((await server.services.engine.stores.memberships.get(attacker.orgId!, me.user.user_id))?.created_account).toBe(true);
    expect((await ssoSignIn(server, attacker.orgId!)).status).toBe(307); // again: the org's own account

    // Adding an existing account by e-mail does not make it the org's to sign in.
    const added = await addedByEmail(server, attacker.client, attacker.orgId!, 'added@victimcorp.test', 'member');
    idp.user = { sub: 'evil-added', email: 'added@victimcorp.test', email_verified: true };
    expect((await ssoSignIn(server, attacker.orgId!)).status).toBe(403);
    // Nor does an invitation accepted by an account with an org of its own: the session would reach that org.
    const invited = await registerUser(server, 'invited@victimcorp.test', { orgName: 'Invited Own' });
    const invite = await attacker.client.post(`/orgs/${attacker.orgId}/invites`, { email: 'invited@victimcorp.test', role: 'member' });
    expect((await invited.client.post(`/auth/me/invitations/${invite.body.invite_id}/accept`)).status).toBe(200);
    idp.user = { sub: 'evil-invited', email: 'invited@victimcorp.test', email_verified: true };
    expect((await ssoSignIn(server, attacker.orgId!)).status).toBe(403);
    expect(await server.services.engine.stores.memberships.get(attacker.orgId!, added.userId)).toMatchObject({ is_active: true });

    // A provider that leaves email_verified out is trusted only for a verified domain.
    idp.user = { sub: 'evil-silent', email: 'silent@victimcorp.test' };
    expect((await ssoSignIn(server, attacker.orgId!)).status).toBe(403);
    // The allowed_domains filter still applies.
    idp.user = { sub: 'evil-out', email: 'x@elsewhere.test', email_verified: true };
    expect((await ssoSignIn(server, attacker.orgId!)).body.detail).toMatch(/domain is not allowed/);
  });

  it('sso.dns_servers takes IP addresses with optional ports (PLANWARDEN_SSO_DNS_SERVERS, comma-separated); a host name is refused at start', () => {
    const load = (value: string) => loadConfig({ env: { PLANWARDEN_SSO_DNS_SERVERS: value }, cwd: '/nonexistent' }).sso.dns_servers;
    expect(load('10.0.0.2, 127.0.0.1:5353,[2001:db8::1]:53')).toEqual(['10.0.0.2', '127.0.0.1:5353', '[2001:db8::1]:53']);
    expect(loadConfig({ env: {}, cwd: '/nonexistent' }).sso.dns_servers).toEqual([]);
    for (const bad of ['resolver.example:53', '10.0.0.2:70000', '[::1']) expect(() => load(bad), bad).toThrow(/sso\.dns_servers/);
  });

  it('verify now: only an admin of the org; no TXT, a wrong TXT, a failing or absent resolver each say what was looked for', async () => {
    const verify = (client: Client, orgId: string, domain = 'victimcorp.test') => client.post(`/orgs/${orgId}/sso/domains/${domain}/verify`);
    expect((await alice.client.post(`/orgs/${alice.orgId}/sso`, connection(['victimcorp.test']))).status).toBe(201); // the squatter's pending claim blocks nothing
    const member = await memberOf(server, alice.client, alice.orgId!, 'member@victimcorp-staff.test', 'member');
    expect((await verify(member.client, alice.orgId!)).status).toBe(403);
    expect((await verify(attacker.client, alice.orgId!)).status).toBe(404);
    expect((await verify(alice.client, alice.orgId!, 'unclaimed.test')).status).toBe(404);
    expect((await verify(alice.client, alice.orgId!, 'not a domain')).status).toBe(422);
    expect((await verify(new Client(server), alice.orgId!)).status).toBe(401);

    const none = await verify(alice.client, alice.orgId!);
    expect(none.status).toBe(422);
    expect(none.body.detail).toContain(`No TXT record found at ${CHALLENGE}`);
    const value = await txtValueOf(alice.client, alice.orgId!, 'victimcorp.test');
    expect(none.body.detail).toContain(value);

    dns.txt.set(CHALLENGE, [['planwarden-domain-verification=0000'], ['v=spf1 -all']]);
    const wrong = await verify(alice.client, alice.orgId!);
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail).toMatch(new RegExp(`TXT records at ${CHALLENGE.replace(/\./g, '\\.')} do not hold "${value}"`));
    // The squatter's own token is no use to the owner, nor the owner's to the squatter.
    dns.txt.set(CHALLENGE, [[await txtValueOf(attacker.client, attacker.orgId!, 'victimcorp.test')]]);
    expect((await verify(alice.client, alice.orgId!)).status).toBe(422);

    dns.servfail.add(CHALLENGE);
    const failing = await verify(alice.client, alice.orgId!);
    expect(failing.status).toBe(502);
    expect(failing.body.detail).toContain(`TXT lookup of ${CHALLENGE} (ESERVFAIL)`);
    dns.servfail.delete(CHALLENGE);

    const configured = server.config.sso.dns_servers;
    const closed = await startFakeDnsServer();
    await closed.close();
    server.config.sso.dns_servers = [closed.address];
    try {
      const down = await verify(alice.client, alice.orgId!);
      expect(down.status).toBe(502);
      expect(down.body.detail).toContain(`TXT lookup of ${CHALLENGE}`);
    } finally {
      server.config.sso.dns_servers = configured;
    }
    expect((await alice.client.get(`/orgs/${alice.orgId}/sso`)).body.domains[0]).toMatchObject({ status: 'pending', verified_at: null });
  });

  it('the owner verifies by DNS TXT despite the squatter; then the squatter can neither verify nor claim it, and discover and social sign-in route to the owner', async () => {
    const value = await txtValueOf(alice.client, alice.orgId!, 'victimcorp.test');
    // A split record (two character-strings) is joined, as RFC 7208 §3.3 reads TXT.
    dns.txt.set(CHALLENGE, [['v=spf1 -all'], [value.slice(0, 20), value.slice(20)]]);
    const verified = await alice.client.post(`/orgs/${alice.orgId}/sso/domains/victimcorp.test/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      domain: 'victimcorp.test',
      status: 'verified',
      verified_at: clock.now().toISOString(),
      verified_by: 'dns',
      txt_record_name: CHALLENGE,
      txt_record_value: value,
    });
    expect((await alice.client.post(`/orgs/${alice.orgId}/sso/domains/victimcorp.test/verify`)).status).toBe(200); // idempotent
    const audit = await alice.client.get('/metrics/audit?action=sso.domain_verify');
    expect(audit.body.events).toEqual([
      expect.objectContaining({
        target_type: 'sso_domain',
        target_id: 'victimcorp.test',
        actor_user_id: alice.userId,
        after: { domain: 'victimcorp.test', status: 'verified', verified_by: 'dns' },
      }),
    ]);

    dns.txt.set(CHALLENGE, [[await txtValueOf(attacker.client, attacker.orgId!, 'victimcorp.test')]]);
    expect((await attacker.client.post(`/orgs/${attacker.orgId}/sso/domains/victimcorp.test/verify`)).status).toBe(409);
    expect((await attacker.client.patch(`/orgs/${attacker.orgId}/sso`, { allowed_domains: ['victimcorp.test', 'more.test'] })).status).toBe(409);
    const third = await registerUser(server, 'third@third.test', { orgName: 'Third' });
    const refused = await third.client.post(`/orgs/${third.orgId}/sso`, connection(['victimcorp.test']));
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('victimcorp.test is claimed by another organization');

    expect((await new Client(server).post('/auth/sso/discover', { email: 'someone@VictimCorp.test' })).body).toEqual({
      org_id: alice.orgId,
      display_name: 'Corp login',
    });
    google.user = { sub: 'g-someone', email: 'someone@victimcorp.test', email_verified: true };
    expect((await socialRoundTrip(server, '/auth/oauth/google/start')).location).toBe(`/api/v1/auth/sso/${alice.orgId}/start`);
    // The attacker's connection still gets nowhere with the domain's existing accounts.
    idp.user = { sub: 'evil-alice-2', email: 'alice@victimcorp.test', email_verified: true };
    expect((await ssoSignIn(server, attacker.orgId!)).status).toBe(403);
  });

  it("through the verified domain the owner's connection links an existing account from elsewhere, never a superadmin", async () => {
    const dave = await registerUser(server, 'dave@victimcorp.test', { orgName: 'Dave Side Project' });
    idp.user = { sub: 'corp-dave', email: 'dave@victimcorp.test' }; // email_verified absent: the verified domain vouches
    const signedIn = await ssoSignIn(server, alice.orgId!);
    expect(signedIn.status).toBe(307);
    expect((await asSession(signedIn.session).get('/auth/me')).body).toMatchObject({ user: { user_id: dave.userId }, org_id: alice.orgId, role: 'member' });
    expect((await server.services.engine.stores.memberships.get(alice.orgId!, dave.userId))?.created_account).not.toBe(true);

    const root = await registerUser(server, 'root@victimcorp.test');
    expect((await bootstrap(server).post(`/admin/users/${root.userId}/superadmin`, { enabled: true })).status).toBe(200);
    idp.user = { sub: 'corp-root', email: 'root@victimcorp.test', email_verified: true };
    expect((await ssoSignIn(server, alice.orgId!)).status).toBe(403);
  });

  it('an SSO session satisfies require_2fa only in the org whose connection established it, not after a switch', async () => {
    const erin = await registerUser(server, 'erin@victimcorp.test', { orgName: 'Erin Strict' });
    const boot = bootstrap(server);
    expect((await boot.patch(`/admin/organizations/${erin.orgId}/2fa-policy`, { require_2fa: true })).status).toBe(200);
    expect((await boot.patch(`/admin/organizations/${alice.orgId}/2fa-policy`, { require_2fa: true })).status).toBe(200);
    try {
      idp.user = { sub: 'corp-erin', email: 'erin@victimcorp.test', email_verified: true };
      const sso = asSession((await ssoSignIn(server, alice.orgId!)).session);
      expect((await sso.get(`/orgs/${alice.orgId}/members`)).status).toBe(200);
      expect((await sso.get(`/orgs/${erin.orgId}`)).status).toBe(403); // another org, same session
      expect((await sso.post('/auth/session/switch', { org_id: erin.orgId })).status).toBe(200);
      expect((await sso.get(`/orgs/${erin.orgId}/members`)).status).toBe(403);
      expect((await sso.get('/auth/me')).body).toMatchObject({ org_id: erin.orgId, mfa_required: true });
      // Switching back does not bring the exemption back either: it was this session's sign-in, now re-minted.
      expect((await sso.post('/auth/session/switch', { org_id: alice.orgId })).status).toBe(200);
      expect((await sso.get(`/orgs/${alice.orgId}/members`)).status).toBe(403);
    } finally {
      expect((await boot.patch(`/admin/organizations/${alice.orgId}/2fa-policy`, { require_2fa: false })).status).toBe(200);
    }
  });

  it('a superadmin may approve a pending domain (audited); removing a domain drops its claim and verification', async () => {
    const corp = await registerUser(server, 'owner@approved.test', { orgName: 'Approved' });
    const base = `/orgs/${corp.orgId}/sso`;
    expect((await corp.client.post(base, connection(['approved.test', 'spare.test']))).status).toBe(201);
    const boot = bootstrap(server);
    const approve = (orgId: string, domain: string) => boot.post(`/admin/organizations/${orgId}/sso/domains/${domain}/verify`);
    expect((await corp.client.post(`/admin/organizations/${corp.orgId}/sso/domains/approved.test/verify`)).status).toBe(403);
    expect((await approve(corp.orgId!, 'unclaimed.test')).status).toBe(404);
    expect((await approve('org_missing', 'approved.test')).status).toBe(404);
    expect((await approve(attacker.orgId!, 'victimcorp.test')).status).toBe(409); // Alice's org holds it
    const approved = await approve(corp.orgId!, 'approved.test');
    expect(approved.body).toMatchObject({ domain: 'approved.test', status: 'verified', verified_by: 'superadmin' });
    const events = (await boot.get(`/admin/organizations/${corp.orgId}/audit?action=sso.domain_verify`)).body.events;
    expect(events).toEqual([
      expect.objectContaining({ actor_is_superadmin: true, target_id: 'approved.test', after: expect.objectContaining({ verified_by: 'superadmin' }) }),
    ]);
    expect((await boot.get(`/admin/organizations/${corp.orgId}`)).body.sso.domains).toEqual([
      expect.objectContaining({ domain: 'approved.test', status: 'verified' }),
      expect.objectContaining({ domain: 'spare.test', status: 'pending' }),
    ]);
    const firstToken = (await corp.client.get(base)).body.domains[0].txt_record_value;

    expect((await new Client(server).post('/auth/sso/discover', { email: 'x@approved.test' })).body.org_id).toBe(corp.orgId);
    expect((await corp.client.patch(base, { allowed_domains: ['spare.test'] })).body.domains).toEqual([expect.objectContaining({ domain: 'spare.test' })]);
    expect((await new Client(server).post('/auth/sso/discover', { email: 'x@approved.test' })).status).toBe(404);
    const readded = await corp.client.patch(base, { allowed_domains: ['approved.test'] });
    expect(readded.body.domains).toEqual([expect.objectContaining({ domain: 'approved.test', status: 'pending' })]);
    expect(readded.body.domains[0].txt_record_value).not.toBe(firstToken);
    expect((await corp.client.patch(base, { allowed_domains: null })).body.domains).toEqual([]);
  });
});
