import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../server/src/cli/admin';
import { totpAt } from '../../server/src/auth/totp';
import { sha256Hex } from '../../engine/src/identity/secrets';
import { corpusFile, type TestServer } from '../helpers/test-server';
import { arrayLogger, BOOTSTRAP_KEY, Client, FakeClock, memberOf, registerUser, startAuthServer } from '../helpers/identity';

describe('audit events, spans and metrics', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let viewer: Awaited<ReturnType<typeof memberOf>>;
  let orgId: string;
  const clock = new FakeClock();

  beforeAll(async () => {
    server = await startAuthServer({ clock });
    owner = await registerUser(server, 'a-owner@example.com', { orgName: 'Audited' });
    orgId = owner.orgId as string;
    viewer = await memberOf(server, owner.client, orgId, 'a-viewer@example.com', 'viewer');
  });
  afterAll(async () => {
    await server.close();
  });

  it('records before/after for member, key, team and invite actions; filters; 401/403/422', async () => {
    const key = await owner.client.post('/auth/keys', { role: 'member', name: 'audited' });
    await owner.client.delete(`/auth/keys/${key.body.key_id}`);
    await owner.client.patch(`/orgs/${orgId}/members/${viewer.userId}`, { role: 'member' });
    await owner.client.post(`/orgs/${orgId}/teams`, { name: 'Red' });
    await owner.client.patch(`/orgs/${orgId}/teams/red`, { name: 'Blue' });
    await owner.client.post(`/orgs/${orgId}/teams/red/members`, { user_id: viewer.userId });
    await owner.client.delete(`/orgs/${orgId}/teams/red/members/${viewer.userId}`);
    await owner.client.delete(`/orgs/${orgId}/teams/red`);
    const invite = await owner.client.post(`/orgs/${orgId}/invites`, { role: 'viewer' });
    await owner.client.delete(`/orgs/${orgId}/invites/${invite.body.invite_id}`);
    const target = await memberOf(server, owner.client, orgId, 'a-target@example.com', 'member');
    await owner.client.post(`/orgs/${orgId}/members/${target.userId}/reset-2fa`);

    const all = await owner.client.get('/metrics/audit?limit=1000');
    expect(all.status).toBe(200);
    const actions = all.body.events.map((e: { action: string }) => e.action);
    for (const a of [
      'api_key.create',
      'api_key.revoke',
      'member.role_update',
      'team.create',
      'team.update',
      'team.member_add',
      'team.member_remove',
      'team.delete',
      'invite.create',
      'invite.revoke',
      'member.2fa_reset',
    ]) {
      expect(actions).toContain(a);
    }
    expect(all.body.total_returned).toBe(all.body.events.length);
    const role = all.body.events.find((e: { action: string; before: unknown }) => e.action === 'member.role_update' && e.before);
    expect(role).toMatchObject({
      org_id: orgId,
      target_type: 'membership',
      target_id: viewer.userId,
      actor_user_id: owner.userId,
      actor_email: 'a-owner@example.com',
      before: { role: 'viewer' },
      after: { role: 'member' },
      request_id: expect.any(String),
    });
    const revoke = all.body.events.find((e: { action: string }) => e.action === 'api_key.revoke');
    expect(revoke.before.is_active).toBe(true);
    expect(revoke.after.is_active).toBe(false);

    const filtered = await owner.client.get('/metrics/audit?action=team.create');
    expect(filtered.body.events).toHaveLength(1);
    expect((await owner.client.get(`/metrics/audit?actor_id=${owner.userId}&limit=2`)).body.events).toHaveLength(2);
    expect((await owner.client.get(`/metrics/audit?target_type=api_key`)).body.events).toHaveLength(2);
    expect((await owner.client.get('/metrics/audit?since=2030-01-01T00:00:00Z')).body.events).toHaveLength(0);
    expect((await new Client(server).get('/metrics/audit')).status).toBe(401);
    expect((await viewer.client.get('/metrics/audit')).status).toBe(403);
    expect((await owner.client.get('/metrics/audit?limit=0')).status).toBe(422);
    expect((await owner.client.get('/metrics/summary?days=400')).status).toBe(422);
    const other = await registerUser(server, 'a-other@example.com', { orgName: 'Other' });
    const theirs = (await other.client.get('/metrics/audit')).body.events as { org_id: string; actor_user_id: string }[];
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((e) => e.org_id === other.orgId && e.actor_user_id === other.userId)).toBe(true);
  });

  it('exports json and csv with before/after JSON-encoded in cells', async () => {
    const json = await owner.client.get('/metrics/audit/export?action=member.role_update');
    expect(json.headers.get('content-disposition')).toMatch(/attachment/);
    expect(JSON.parse(json.text)[0]).toMatchObject({ action: 'member.role_update' });
    const csv = await owner.client.get('/metrics/audit/export?format=csv&action=member.role_update');
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    const [header, first] = csv.text.trim().split('\r\n');
    expect(header.split(',')).toContain('before');
    expect(first).toContain('"{""user_id"":');
    expect((await owner.client.get('/metrics/audit/export?format=xml')).status).toBe(400); // unknown value (identity-api.md Errors)
  });

  it('spans: request spans carry X-Request-ID; ingest spans; summary, span log and per-key counts', async () => {
    const key = await owner.client.post('/auth/keys', { role: 'member', name: 'ingester' });
    const ingester = new Client(server, { 'X-API-Key': key.body.key });
    await ingester.get('/auth/me', { 'X-Request-ID': 'trace-abc' });
    await ingester.get('/auth/me');
    const plan = corpusFile('tfplan-json/terraform-showjson-basic-delete.json');
    const ingest = await server.api('/terraform/audit-ns/ingest', { method: 'POST', body: new Uint8Array(plan), headers: { 'X-API-Key': key.body.key } });
    expect(ingest.status).toBe(201);
    await new Promise((r) => setImmediate(r));
    const spans = await owner.client.get('/metrics/spans?type=request&limit=1000');
    const traced = spans.body.find((s: { trace_id: string }) => s.trace_id === 'trace-abc');
    expect(traced).toMatchObject({
      type: 'request',
      key_id: key.body.key_id,
      user_id: null,
      data: { method: 'GET', path: '/api/v1/auth/me', status_code: 200, auth_type: 'api_key' },
    });
    const ingestSpans = await owner.client.get(`/metrics/spans?type=ingest&key_id=${key.body.key_id}`);
    expect(ingestSpans.body[0]).toMatchObject({ type: 'ingest', data: { namespace: 'audit-ns', analyzer: 'terraform', resource_count: expect.any(Number) } });
    expect(ingestSpans.body[0].data.resource_count).toBeGreaterThan(0);
    const summary = await owner.client.get('/metrics/summary');
    expect(summary.body).toMatchObject({
      period_days: 7,
      requests: { total: expect.any(Number), by_status: expect.any(Object) },
      ingest: { total: 1 },
      analysis: { total: 0 },
    });
    expect(summary.body.requests.total).toBeGreaterThan(3);
    const counts = await owner.client.get('/metrics/keys');
    expect(counts.body[0]).toEqual({ key_id: key.body.key_id, request_count: 3 });
    expect((await viewer.client.get('/metrics/keys')).status).toBe(403);
  });

  it('the admin command makes a user superadmin and ends their sessions', async () => {
    const lines: string[] = [];
    const u = await registerUser(server, 'cli@example.com');
    expect(await runAdminCommand(server.services.engine, ['make-superadmin', 'CLI@example.com'], (l) => lines.push(l))).toBe(0);
    expect((await u.client.get('/auth/me')).status).toBe(401);
    const relog = await u.client.post('/auth/session', { email: 'cli@example.com', password: 'correct-horse-1' });
    expect(relog.body.is_superadmin).toBe(true);
    expect(await runAdminCommand(server.services.engine, ['make-superadmin', 'nobody@example.com'], (l) => lines.push(l))).toBe(1);
    expect(await runAdminCommand(server.services.engine, [], (l) => lines.push(l))).toBe(2);
  });
});

describe('default admin account', () => {
  it('is created once from config; a short password is silently skipped', async () => {
    const server = await startAuthServer({ overrides: { auth: { default_admin_email: 'root@example.com', default_admin_password: 'root-password' } } });
    try {
      const login = await new Client(server).post('/auth/session', { email: 'root@example.com', password: 'root-password' });
      // The configured administrator owns the default organization (docs/decisions.md, first run of a team server).
      expect(login.body).toMatchObject({ is_superadmin: true, org_id: 'default', role: 'owner' });
    } finally {
      await server.close();
    }
    const short = await startAuthServer({ overrides: { auth: { default_admin_email: 'root@example.com', default_admin_password: 'short' } } });
    try {
      expect((await new Client(short).post('/auth/session', { email: 'root@example.com', password: 'short' })).status).toBe(401);
    } finally {
      await short.close();
    }
  });
});

describe('brute-force protection (rate_limit.enabled)', () => {
  it('limits failed logins per account, second-factor attempts per account and failed credentials per IP', async () => {
    const clock = new FakeClock();
    const server = await startAuthServer({
      clock,
      overrides: { rate_limit: { enabled: true, failed_logins_per_account: 3, second_factor_attempts_per_account: 2, failed_credentials_per_ip: 8 } },
    });
    try {
      await registerUser(server, 'bf@example.com');
      const c = new Client(server);
      for (let i = 0; i < 3; i += 1) expect((await c.post('/auth/session', { email: 'bf@example.com', password: 'wrong-password' })).status).toBe(401);
      const blocked = await c.post('/auth/session', { email: 'bf@example.com', password: 'correct-horse-1' });
      expect(blocked.status).toBe(429);
      expect(blocked.body).toEqual({ detail: expect.any(String) });

      const t = await registerUser(server, 'bf2@example.com');
      const enroll = await t.client.post('/auth/me/2fa/enroll');
      await t.client.post('/auth/me/2fa/confirm', { code: totpAt(enroll.body.manual_entry_code, clock.now()) });
      const step1 = await c.post('/auth/session', { email: 'bf2@example.com', password: 'correct-horse-1' });
      for (let i = 0; i < 2; i += 1) expect((await c.post('/auth/session/2fa', { mfa_token: step1.body.mfa_token, code: '000001' })).status).toBe(401);
      expect((await c.post('/auth/session/2fa', { mfa_token: step1.body.mfa_token, code: totpAt(enroll.body.manual_entry_code, clock.now()) })).status).toBe(
        429,
      );

      // 3 failed logins + 2 failed codes so far from this IP; three bad keys reach 8.
      for (let i = 0; i < 3; i += 1) expect((await new Client(server, { 'X-API-Key': `bad-${i}` }).get('/auth/me')).status).toBe(401);
      expect((await new Client(server, { 'X-API-Key': BOOTSTRAP_KEY }).get('/auth/me')).status).toBe(429);
      expect((await new Client(server).post('/auth/session', { email: 'other@example.com', password: 'whatever-1' })).status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it('is on by default (issue 14): five wrong passwords, then the right one is refused with Retry-After', async () => {
    const server = await startAuthServer();
    try {
      await registerUser(server, 'nobf@example.com');
      for (let i = 0; i < 5; i += 1)
        expect((await new Client(server).post('/auth/session', { email: 'nobf@example.com', password: 'wrong-password' })).status).toBe(401);
      const refused = await new Client(server).post('/auth/session', { email: 'nobf@example.com', password: 'correct-horse-1' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    } finally {
      await server.close();
    }
  });
});

describe('secrets never leak', () => {
  it('stores scrypt hashes and never shows a token, key, hash or secret after creation, in responses or logs', async () => {
    const lines: string[] = [];
    const clock = new FakeClock();
    const server = await startAuthServer({ clock, start: { log: arrayLogger(lines) } });
    const responses: { label: string; text: string }[] = [];
    const secrets: { value: string; revealedIn: string | null }[] = [];
    const record = <T extends { text: string }>(label: string, r: T): T => {
      responses.push({ label, text: r.text });
      return r;
    };
    try {
      const password = 'Sup3r-secret-pass';
      const owner = await registerUser(server, 'leak@example.com', { orgName: 'Leaky', password });
      const twin = await registerUser(server, 'twin@example.com', { password });
      const stored = await server.services.engine.stores.users.byEmail('leak@example.com');
      const storedTwin = await server.services.engine.stores.users.byEmail('twin@example.com');
      expect(stored?.password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      expect(stored?.password_hash).not.toContain(password);
      expect(stored?.password_hash).not.toBe(storedTwin?.password_hash);
      secrets.push({ value: password, revealedIn: null }, { value: stored!.password_hash!, revealedIn: null }, { value: BOOTSTRAP_KEY, revealedIn: null });
      secrets.push(
        { value: owner.client.cookie!.split('=')[1], revealedIn: null },
        { value: twin.userId ? twin.client.cookie!.split('=')[1] : '', revealedIn: null },
      );

      const key = record('key.create', await owner.client.post('/auth/keys', { role: 'admin', name: 'leak' }));
      const rawKey = JSON.parse(key.text).key as string;
      secrets.push({ value: rawKey, revealedIn: 'key.create' }, { value: sha256Hex(rawKey), revealedIn: null });
      const invite = record('invite.create', await owner.client.post(`/orgs/${owner.orgId}/invites`, { role: 'member' }));
      const token = JSON.parse(invite.text).token as string;
      secrets.push({ value: token, revealedIn: 'invite.create' }, { value: sha256Hex(token), revealedIn: null });
      const enroll = record('2fa.enroll', await owner.client.post('/auth/me/2fa/enroll'));
      const totpSecret = JSON.parse(enroll.text).manual_entry_code as string;
      secrets.push({ value: totpSecret, revealedIn: '2fa.enroll' });
      const confirm = record('2fa.confirm', await owner.client.post('/auth/me/2fa/confirm', { code: totpAt(totpSecret, clock.now()) }));
      for (const code of JSON.parse(confirm.text).recovery_codes as string[])
        secrets.push({ value: code, revealedIn: '2fa.confirm' }, { value: sha256Hex(code), revealedIn: null });
      const member = await memberOf(server, owner.client, owner.orgId as string, 'leak-member@example.com', 'member');
      const reset = record('reset', await owner.client.post(`/orgs/${owner.orgId}/members/${member.userId}/reset-password`));
      secrets.push({ value: JSON.parse(reset.text).temporary_password, revealedIn: 'reset' });
      const login = record('login', await new Client(server).post('/auth/session', { email: 'leak@example.com', password }));
      secrets.push({ value: JSON.parse(login.text).mfa_token, revealedIn: 'login' });

      const keyClient = new Client(server, { 'X-API-Key': rawKey });
      const reads: [string, Client, string][] = [
        ['me', owner.client, '/auth/me'],
        ['keys', owner.client, '/auth/keys'],
        ['invites', owner.client, `/orgs/${owner.orgId}/invites`],
        ['members', owner.client, `/orgs/${owner.orgId}/members`],
        ['audit', owner.client, '/metrics/audit?limit=1000'],
        ['audit.csv', owner.client, '/metrics/audit/export?format=csv'],
        ['spans', owner.client, '/metrics/spans?limit=1000'],
        ['key.me', keyClient, '/auth/me'],
        ['orgs', owner.client, '/auth/me/organizations'],
        ['preview', new Client(server), `/invite/${token}`],
      ];
      for (const [label, client, path] of reads) {
        const res = record(label, await client.get(path));
        expect(res.status, `${label} ${path}`).toBe(200);
      }
      // Force an unhandled-path log line or two, and a bad credential.
      await new Client(server, { 'X-API-Key': 'pwk_wrong' }).get('/auth/me');
      const leaks: string[] = [];
      for (const { value, revealedIn } of secrets) {
        if (!value) continue;
        for (const r of responses) if (r.label !== revealedIn && r.text.includes(value)) leaks.push(`${r.label} shows ${value.slice(0, 6)}…`);
        for (const line of lines) if (line.includes(value)) leaks.push(`log shows ${value.slice(0, 6)}…`);
      }
      expect(leaks).toEqual([]);
      expect(responses.length).toBeGreaterThan(10);
    } finally {
      await server.close();
    }
  });
});
