import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config/config';
import { POLICIES, type Policy, type RouteDef } from '../../server/src/http/route';
import { buildServer } from '../../server/src/server';
import { silentLogger } from '../../engine/src/core/logger';
import type { TestServer } from '../helpers/test-server';
import { addedByEmail, BOOTSTRAP_KEY, bootstrap, Client, FakeClock, memberOf, registerUser, startAuthServer } from '../helpers/identity';

/**
 * The authorization matrix, generated from the router itself: every registered route × every
 * principal kind of identity-api.md "Authentication", with the expectation derived from the
 * route's declared policy.
 */
type Outcome = 'ok' | 400 | 401 | 403 | 404 | 423;
interface PrincipalCase {
  readonly name: string;
  readonly client: Client;
  /** Its `{org_id}` for path parameters (the seeded org unless the case is about its own org). */
  readonly orgId: string;
  readonly expect: (def: RouteDef) => Outcome;
  /**
   * GET /orgs/{org_id} checks "member of that org" itself (identity-api.md: 403 not a member, not
   * the router's tenancy 404), so its cell is declared per principal.
   */
  readonly orgInfo: Outcome;
}

const ROLE_RANK: Record<string, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const isRole = (p: Policy) => p in ROLE_RANK;
const hasOrgParam = (def: RouteDef) => def.path.includes(':org_id');
/** A tenant route naming an org in its path: another org's principal gets 404 (no signal). */
const orgPathOf = (def: RouteDef) => hasOrgParam(def) && (isRole(def.policy) || def.policy === 'human');
const isOrgInfo = (def: RouteDef) => def.method === 'get' && def.path === '/orgs/:org_id';
/**
 * The SCIM protocol surface authenticates with the org's SCIM bearer token only (identity-api.md
 * "Authentication": a separate credential valid only on the SCIM surface), so no session or API
 * key of the matrix opens it; tests/api/scim.test.ts covers the token itself.
 */
const isScimProtocol = (def: RouteDef): boolean => def.path.startsWith('/scim/v2/');
const expectationOf = (principal: PrincipalCase, def: RouteDef): Outcome => {
  if (isScimProtocol(def)) return 401;
  return isOrgInfo(def) ? principal.orgInfo : principal.expect(def);
};

/**
 * A browser that keeps presenting one session cookie whatever the server sets (a stolen or
 * simply old cookie): routes that re-mint the session (switch, invite acceptance, POST /orgs)
 * must not refresh the stale role claim under test.
 */
class StaleSession extends Client {
  override async call(method: string, path: string, json?: unknown, extra: Record<string, string> = {}) {
    const kept = this.cookie;
    try {
      return await super.call(method, path, json, extra);
    } finally {
      this.cookie = kept;
    }
  }
}

/** Express 5 router introspection: `METHOD path` of every route the router mounted at /api/v1 serves. */
function routerRoutes(app: { router: { stack: any[] } }): string[] {
  const out: string[] = [];
  for (const layer of app.router.stack) {
    const inner = layer.handle?.stack as any[] | undefined;
    if (!inner || !layer.match('/api/v1/health') || layer.match('/elsewhere/health')) continue;
    for (const l of inner) {
      if (!l.route) continue;
      for (const method of Object.keys(l.route.methods)) out.push(`${method.toUpperCase()} ${l.route.path}`);
    }
  }
  return out;
}

describe('authorization matrix (router × principals)', () => {
  let server: TestServer;
  let routes: RouteDef[];
  let registered: string[];
  const cases: PrincipalCase[] = [];
  const params: Record<string, string> = {};

  beforeAll(async () => {
    const clock = new FakeClock();
    server = await startAuthServer({ clock });
    const config = loadConfig({ env: {}, cwd: '/nonexistent', overrides: { storage: { backend: 'memory' }, auth: { enabled: true } } });
    const built = await buildServer(config, { log: silentLogger });
    routes = built.routes;
    registered = routerRoutes(built.app as unknown as { router: { stack: any[] } });
    built.services.identity.guard.shutdown();
    await built.store.close();

    const boot = bootstrap(server);
    const owner = await registerUser(server, 'm-owner@example.com', { orgName: 'Matrix' });
    const orgId = owner.orgId as string;
    const viewer = await memberOf(server, owner.client, orgId, 'm-viewer@example.com', 'viewer');
    const member = await memberOf(server, owner.client, orgId, 'm-member@example.com', 'member');
    const admin = await memberOf(server, owner.client, orgId, 'm-admin@example.com', 'admin');
    // Signed in as admin, then demoted: the cookie's role claim still says admin.
    const demotedUser = await memberOf(server, owner.client, orgId, 'm-demoted@example.com', 'admin');
    const demoted = Object.assign(new StaleSession(server), { cookie: demotedUser.client.cookie });
    expect((await owner.client.patch(`/orgs/${orgId}/members/${demotedUser.userId}`, { role: 'viewer' })).status).toBe(200);
    const target = await memberOf(server, owner.client, orgId, 'm-target@example.com', 'member');
    const other = await registerUser(server, 'm-other@example.com', { orgName: 'Elsewhere' });
    const superUser = await registerUser(server, 'm-super@example.com');
    expect((await boot.post(`/admin/users/${superUser.userId}/superadmin`, { enabled: true })).status).toBe(200);
    expect((await superUser.client.post('/auth/session', { email: 'm-super@example.com', password: 'correct-horse-1' })).body.is_superadmin).toBe(true);
    const locked = await registerUser(server, 'm-locked@example.com', { orgName: 'Locked' });
    expect((await boot.patch(`/admin/organizations/${locked.orgId}/lock`, { locked: true })).body).toEqual({ org_id: locked.orgId, locked: true });
    const strict = await registerUser(server, 'm-strict@example.com', { orgName: 'Strict' });
    expect((await boot.patch(`/admin/organizations/${strict.orgId}/2fa-policy`, { require_2fa: true })).status).toBe(200);

    const revokedKey = await owner.client.post('/auth/keys', { role: 'owner', name: 'revoked' });
    expect((await owner.client.delete(`/auth/keys/${revokedKey.body.key_id}`)).status).toBe(200);
    const fencedKey = await owner.client.post('/auth/keys', { role: 'owner', name: 'fenced', ip_allowlist: ['10.0.0.0/8', '192.0.2.7'] });
    const spareKey = await owner.client.post('/auth/keys', { role: 'member', name: 'spare' });
    const team = await owner.client.post(`/orgs/${orgId}/teams`, { name: 'Matrix team' });
    const invite = await owner.client.post(`/orgs/${orgId}/invites`, { role: 'member' });
    Object.assign(params, {
      org_id: orgId,
      user_id: target.userId,
      team_id: team.body.team_id,
      invite_id: invite.body.invite_id,
      key_id: spareKey.body.key_id,
      token: invite.body.token,
      job_id: 'job_missing',
      namespace: 'matrix-ns',
      analyzer_name: 'terraform',
      analyzer: 'terraform',
      hash: 'a'.repeat(64),
      provider: 'openai',
      rule_id: 'RULE-1',
      resource_hash: 'a'.repeat(64),
    });

    const byRank =
      (role: string) =>
      (def: RouteDef): Outcome => {
        if (def.policy === 'public' || def.policy === 'authenticated' || def.policy === 'human') return 'ok';
        if (def.policy === 'superadmin') return 403;
        return ROLE_RANK[role] >= ROLE_RANK[def.policy] ? 'ok' : 403;
      };
    const noCredential =
      (status: Outcome) =>
      (def: RouteDef): Outcome =>
        def.policy === 'public' ? 'ok' : status;
    const ownOrgBlocked =
      (status: Outcome) =>
      (def: RouteDef): Outcome => {
        if (def.policy === 'public' || def.policy === 'authenticated' || def.policy === 'human') return 'ok';
        if (def.policy === 'superadmin') return 403;
        return status;
      };
    cases.push(
      { name: 'no credential', client: new Client(server), orgId, expect: noCredential(401), orgInfo: 401 },
      { name: 'viewer', client: viewer.client, orgId, expect: byRank('viewer'), orgInfo: 'ok' },
      { name: 'admin demoted to viewer (session minted as admin)', client: demoted, orgId, expect: byRank('viewer'), orgInfo: 'ok' },
      { name: 'member', client: member.client, orgId, expect: byRank('member'), orgInfo: 'ok' },
      { name: 'admin', client: admin.client, orgId, expect: byRank('admin'), orgInfo: 'ok' },
      { name: 'owner', client: owner.client, orgId, expect: byRank('owner'), orgInfo: 'ok' },
      {
        name: 'superadmin outside the org',
        client: superUser.client,
        orgId,
        orgInfo: 403,
        expect: (def) => (orgPathOf(def) ? 404 : def.policy === 'superadmin' || !isRole(def.policy) ? 'ok' : 403),
      },
      {
        name: 'member of another org',
        client: other.client,
        orgId,
        orgInfo: 403,
        expect: (def) => (orgPathOf(def) ? 404 : byRank('owner')(def)),
      },
      { name: 'revoked key', client: new Client(server, { 'X-API-Key': revokedKey.body.key }), orgId, expect: noCredential(401), orgInfo: 401 },
      { name: 'key outside its allowlist', client: new Client(server, { 'X-API-Key': fencedKey.body.key }), orgId, expect: noCredential(403), orgInfo: 403 },
      { name: 'locked org', client: locked.client, orgId: locked.orgId as string, expect: ownOrgBlocked(423), orgInfo: 423 },
      { name: '2FA-required org', client: strict.client, orgId: strict.orgId as string, expect: ownOrgBlocked(403), orgInfo: 403 },
    );
    expect(BOOTSTRAP_KEY).toBeTruthy();
  });
  afterAll(async () => {
    await server.close();
  });

  it('every route declares a known policy and the matrix covers the whole router', () => {
    for (const def of routes) expect(POLICIES, `${def.method} ${def.path}`).toContain(def.policy);
    const declared = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect([...new Set(registered)].sort()).toEqual([...new Set(declared)].sort());
  });

  it('answers the spec status for every route × principal', async () => {
    const failures: string[] = [];
    // Self-affecting calls (logout drops the cookie, leave the membership) run last for each principal.
    const last = (def: RouteDef) => (def.path === '/auth/logout' ? 2 : def.path.endsWith('/leave') ? 1 : 0);
    const ordered = [...routes].sort((a, b) => last(a) - last(b));
    for (const principal of cases) {
      for (const def of ordered) {
        const path = def.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
          if (name === 'org_id') return principal.orgId;
          return params[name] ?? `matrix-${name}`;
        });
        const wants = expectationOf(principal, def);
        const res = await principal.client.call(def.method.toUpperCase(), path, def.body === 'json' ? {} : undefined);
        const tenancy404 = res.status === 404 && res.body?.detail === 'Organization not found';
        const ok =
          wants === 'ok'
            ? // 501 is a spec answer (an integration not configured: identity-api.md "Errors"), not a crash.
              ![401, 403, 423].includes(res.status) && !tenancy404 && (res.status < 500 || res.status === 501)
            : res.status === wants;
        if (!ok) failures.push(`${principal.name}: ${def.method.toUpperCase()} ${def.path} → ${res.status} (expected ${wants}) ${res.text.slice(0, 120)}`);
      }
    }
    console.log(
      `authorization matrix: ${routes.length} routes × ${cases.length} principals = ${routes.length * cases.length} cells, ${failures.length} failures`,
    );
    expect(failures).toEqual([]);
  }, 180_000); // ~2,500 sequential requests: over the default 30 s on a busy 2-core machine

  it('credential resets reach only accounts the org administers (reset routes × callers × target accounts)', async () => {
    const boot = bootstrap(server);
    const home = await registerUser(server, 'r-owner@example.com', { orgName: 'Resets' });
    const org = home.orgId as string;
    const away = await registerUser(server, 'r-away@example.com', { orgName: 'Away' });
    const admin = await memberOf(server, home.client, org, 'r-admin@example.com', 'admin');
    const demotedUser = await memberOf(server, home.client, org, 'r-demoted@example.com', 'admin');
    const demoted = Object.assign(new StaleSession(server), { cookie: demotedUser.client.cookie });
    expect((await home.client.patch(`/orgs/${org}/members/${demotedUser.userId}`, { role: 'member' })).status).toBe(200);
    const adminKey = (await home.client.post('/auth/keys', { role: 'admin', name: 'r-admin-key' })).body.key as string;

    const member = await memberOf(server, home.client, org, 'r-member@example.com', 'member');
    const peer = await memberOf(server, home.client, org, 'r-peer@example.com', 'admin');
    const elsewhere = await memberOf(server, home.client, org, 'r-elsewhere@example.com', 'member');
    const awayInvite = await away.client.post(`/orgs/${away.orgId}/invites`, { email: 'r-elsewhere@example.com', role: 'viewer' });
    expect((await elsewhere.client.post(`/auth/me/invitations/${awayInvite.body.invite_id}/accept`)).status).toBe(200);
    const platformAdmin = await memberOf(server, home.client, org, 'r-super@example.com', 'viewer');
    expect((await boot.post(`/admin/users/${platformAdmin.userId}/superadmin`, { enabled: true })).status).toBe(200);
    const added = await addedByEmail(server, home.client, org, 'r-added@example.com', 'member');

    type Target = { readonly name: string; readonly userId: string; readonly forRole: (role: string) => Outcome };
    const administered = (name: string, userId: string, role: string): Target => ({
      name,
      userId,
      forRole: (caller) => (ROLE_RANK[role] <= ROLE_RANK[caller] ? 'ok' : 403),
    });
    const unmanaged = (name: string, userId: string): Target => ({ name, userId, forRole: () => 403 });
    const targets: Target[] = [
      administered('administered member', member.userId, 'member'),
      administered('administered admin', peer.userId, 'admin'),
      { name: 'the owner', userId: home.userId, forRole: (caller) => (caller === 'owner' ? 400 : 403) },
      unmanaged('active in another org', elsewhere.userId),
      unmanaged('superadmin', platformAdmin.userId),
      unmanaged('added by e-mail', added.userId),
    ];
    const callers = [
      { name: 'admin', client: admin.client, role: 'admin' },
      { name: 'admin key', client: new Client(server, { 'X-API-Key': adminKey }), role: 'admin' },
      { name: 'admin demoted to member (old session)', client: demoted, role: 'member' },
      { name: 'owner', client: home.client, role: 'owner' },
    ];
    const resetRoutes = routes.filter((r) => r.method === 'post' && /\/(reset-password|reset-2fa|2fa-reset)$/.test(r.path));
    const orgRoutes = resetRoutes.filter((r) => isRole(r.policy));
    const mirrorRoutes = resetRoutes.filter((r) => r.policy === 'superadmin');
    expect(orgRoutes.length).toBe(3);
    expect(mirrorRoutes.length).toBe(5); // the member mirror (both spellings) and the account-wide /admin/users resets

    const failures: string[] = [];
    let cells = 0;
    const check = async (who: string, client: Client, def: RouteDef, target: Target, wants: Outcome) => {
      cells += 1;
      const res = await client.post(def.path.replace(':org_id', org).replace(':user_id', target.userId));
      if (res.status !== (wants === 'ok' ? 200 : wants))
        failures.push(`${who} → ${target.name}: POST ${def.path} → ${res.status} (expected ${wants}) ${res.text.slice(0, 120)}`);
    };
    // Org routes first, then org callers on the mirror, then the superadmin (whose resets end the owner's session).
    for (const caller of callers) {
      for (const def of orgRoutes) {
        for (const target of targets)
          await check(caller.name, caller.client, def, target, ROLE_RANK[caller.role] < ROLE_RANK[def.policy] ? 403 : target.forRole(caller.role));
      }
    }
    for (const caller of callers) for (const def of mirrorRoutes) await check(caller.name, caller.client, def, targets[0], 403);
    for (const def of mirrorRoutes) for (const target of targets) await check('superadmin (mirror)', boot, def, target, 'ok');
    console.log(`reset matrix: ${cells} cells, ${failures.length} failures`);
    expect(failures).toEqual([]);
  });
});
