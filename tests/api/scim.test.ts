import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { registerUser, startAuthServer } from '../helpers/identity';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('SCIM 2.0 provisioning', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let orgId: string;
  let token: string;

  /** A SCIM client: bearer token, application/scim+json both ways. */
  const scim = async (method: string, path: string, body?: unknown, bearer: string | null = token, org = orgId) => {
    const res = await fetch(`${server.url}/api/v1/scim/v2/${org}${path}`, {
      method,
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body ? { 'content-type': 'application/scim+json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : null };
  };
  const members = async () =>
    (await owner.client.get(`/orgs/${orgId}/members`)).body.members as { user_id: string; email: string; role: string; is_active: boolean }[];

  beforeAll(async () => {
    server = await startAuthServer();
    owner = await registerUser(server, 'scim-owner@corp.test', { orgName: 'Corp' });
    orgId = owner.orgId as string;
  });
  afterAll(async () => {
    await server.close();
  });

  it('configuration: token once, owner role and bad patterns refused, token never listed', async () => {
    const base = `/orgs/${orgId}/scim`;
    expect((await owner.client.get(base)).status).toBe(404);
    expect((await owner.client.post(base, { default_role: 'owner' })).status).toBe(422);
    expect((await owner.client.post(base, { group_role_mappings: [{ pattern: '^Admins$', role: 'owner' }] })).status).toBe(422);
    expect((await owner.client.post(base, { group_role_mappings: [{ pattern: '([unclosed', role: 'admin' }] })).status).toBe(422);
    // Patterns run on RE2 (linear time): a backreference or lookaround is refused at save.
    const backreference = await owner.client.post(base, { group_role_mappings: [{ pattern: '^(a)\\1$', role: 'admin' }] });
    expect(backreference.status).toBe(422);
    expect(backreference.body.detail).toMatch(/group_role_mappings\.0\.pattern: not a valid RE2 regular expression/);
    const created = await owner.client.post(base, {
      default_role: 'viewer',
      group_role_mappings: [
        { pattern: '^Planwarden Admins$', role: 'admin' },
        { pattern: '^Eng', role: 'member' },
      ],
    });
    expect(created.status).toBe(201);
    token = created.body.token;
    expect(Object.keys(created.body)).toEqual(['token']);
    expect((await owner.client.post(base, {})).status).toBe(409);
    const got = await owner.client.get(base);
    expect(got.body).toMatchObject({ enabled: true, default_role: 'viewer', token_set: true, base_url: `${server.url}/api/v1/scim/v2/${orgId}` });
    expect(got.text).not.toContain(token);
    expect((await owner.client.get(`/metrics/audit?action=scim.config.create`)).body.events).toHaveLength(1);
  });

  it('the token authenticates only the SCIM surface of its own org', async () => {
    expect((await scim('GET', '/Users', undefined, null)).status).toBe(401);
    expect((await scim('GET', '/Users', undefined, 'scim_wrong')).body).toMatchObject({ schemas: [ERROR], status: '401' });
    const other = await registerUser(server, 'scim-other@other.test', { orgName: 'Other' });
    expect((await scim('GET', '/Users', undefined, token, other.orgId as string)).status).toBe(403);
    // A session cookie does not unlock SCIM; the SCIM token unlocks nothing else.
    const withCookie = await fetch(`${server.url}/api/v1/scim/v2/${orgId}/Users`, { headers: { cookie: owner.client.cookie as string } });
    expect(withCookie.status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/orgs/${orgId}/members`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/orgs/${orgId}/members`, { headers: { 'x-api-key': token } })).status).toBe(401);
    const spc = await scim('GET', '/ServiceProviderConfig');
    expect(spc.type).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
    expect((await scim('GET', '/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
    expect((await scim('GET', '/Schemas')).body.totalResults).toBe(2);
  });

  it('Okta user lifecycle: create, get by filter, deactivate, reactivate, idempotent create', async () => {
    // Okta: GET /Users?filter=userName eq "..."&startIndex=1&count=100 before creating.
    const lookup = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "ada@corp.test"')}&startIndex=1&count=100`);
    expect(lookup.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ada@corp.test',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ primary: true, value: 'ada@corp.test', type: 'work' }],
      displayName: 'Ada Lovelace',
      externalId: '00u1okta',
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.type).toMatch(/^application\/scim\+json/);
    expect(created.body).toMatchObject({ userName: 'ada@corp.test', externalId: '00u1okta', active: true, meta: { resourceType: 'User' } });
    const id = created.body.id as string;
    expect((await members()).find((m) => m.user_id === id)).toMatchObject({ role: 'viewer', is_active: true });
    expect((await scim('POST', '/Users', { userName: 'ADA@corp.test' })).body.id).toBe(id);

    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "Ada@Corp.test"')}`);
    expect(found.body.Resources.map((u: { id: string }) => u.id)).toEqual([id]);
    // Okta: PATCH with replace and no path.
    const off = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(off.body.active).toBe(false);
    expect((await members()).find((m) => m.user_id === id)?.is_active).toBe(false);
    const on = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: true }] });
    expect(on.body.active).toBe(true);
    const put = await scim('PUT', `/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ada@corp.test',
      externalId: '00u1okta',
      active: false,
    });
    expect(put.body.active).toBe(false);
    const actions = (await owner.client.get('/metrics/audit?target_type=user')).body.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['scim.user.provisioned', 'scim.user.deactivated', 'scim.user.reactivated']));
  });

  it('Entra ID user lifecycle: filter by externalId, "False" as a string, delete removes the membership only', async () => {
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: 'bob-guid',
      userName: 'bob@corp.test',
      active: true,
      displayName: 'Bob',
      emails: [{ primary: true, type: 'work', value: 'bob@corp.test' }],
      name: { formatted: 'Bob B', familyName: 'B', givenName: 'Bob' },
    });
    const id = created.body.id as string;
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "bob-guid"')}`)).body.totalResults).toBe(1);
    const patched = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(patched.status).toBe(200);
    expect(patched.body.active).toBe(false);
    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await scim('GET', `/Users/${id}`)).body).toMatchObject({ schemas: [ERROR], status: '404' });
    expect((await members()).some((m) => m.user_id === id)).toBe(false);
    expect(await server.services.engine.stores.users.get(id)).not.toBeNull();
  });

  it('filters (eq, co, sw, and, or, emails.value, displayName) and startIndex/count paging; errors in the SCIM schema', async () => {
    for (const name of ['carol', 'carl', 'dave']) await scim('POST', '/Users', { userName: `${name}@corp.test`, displayName: name });
    const ids = async (filter: string) =>
      (await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`)).body.Resources.map((u: { userName: string }) => u.userName).sort();
    expect(await ids('userName sw "car"')).toEqual(['carl@corp.test', 'carol@corp.test']);
    expect(await ids('emails.value co "ave@"')).toEqual(['dave@corp.test']);
    expect(await ids('userName sw "car" and displayName eq "carl"')).toEqual(['carl@corp.test']);
    expect(await ids('displayName eq "dave" or emails[value eq "carol@corp.test"]')).toEqual(['carol@corp.test', 'dave@corp.test']);
    const page = await scim('GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ startIndex: 2, itemsPerPage: 2 });
    expect(page.body.totalResults).toBeGreaterThanOrEqual(5);
    const bad = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq')}`);
    expect(bad).toMatchObject({ status: 400, body: { schemas: [ERROR], status: '400', scimType: 'invalidFilter' } });
    expect(bad.type).toMatch(/^application\/scim\+json/);
    // The owner is protected.
    const ownerPatch = await scim('PATCH', `/Users/${owner.userId}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] });
    expect(ownerPatch).toMatchObject({ status: 409, body: { schemas: [ERROR], status: '409' } });
    expect((await scim('DELETE', `/Users/${owner.userId}`)).status).toBe(409);
  });

  it('groups: create, add/remove members, rename, delete; roles recomputed through group_role_mappings', async () => {
    const user = async (email: string) => (await scim('POST', '/Users', { userName: email })).body.id as string;
    const erin = await user('erin@corp.test');
    const finn = await user('finn@corp.test');
    const role = async (id: string) => (await members()).find((m) => m.user_id === id)?.role;
    // Entra: POST /Groups without members, then PATCH add members.
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      externalId: 'grp-1',
      displayName: 'Planwarden Admins',
      members: [],
    });
    expect(group.status).toBe(201);
    const gid = group.body.id as string;
    expect((await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Planwarden Admins"')}`)).body.Resources[0].id).toBe(gid);
    await scim('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ value: erin }, { value: finn }] }] });
    expect(await role(erin)).toBe('admin');
    expect(await role(finn)).toBe('admin');
    // Okta: remove one member through a value filter.
    await scim('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${finn}"]` }] });
    expect(await role(finn)).toBe('viewer');
    expect((await scim('GET', `/Groups/${gid}`)).body.members.map((m: { value: string }) => m.value)).toEqual([erin]);
    // Rename: "Engineering" maps to member.
    const renamed = await scim('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { id: gid, displayName: 'Engineering' } }],
    });
    expect(renamed.body.displayName).toBe('Engineering');
    expect(await role(erin)).toBe('member');
    await scim('PUT', `/Groups/${gid}`, { displayName: 'Engineering', members: [{ value: erin }, { value: finn }] });
    expect(await role(erin)).toBe('member');
    expect(await role(finn)).toBe('member');
    // The owner in a group keeps ownership.
    await scim('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: owner.userId }] }] });
    expect(await role(owner.userId)).toBe('owner');
    expect((await scim('DELETE', `/Groups/${gid}`)).status).toBe(204);
    expect(await role(erin)).toBe('viewer');
    expect((await owner.client.get(`/orgs/${orgId}/teams/${gid}`)).status).toBe(404);
    const actions = (await owner.client.get('/metrics/audit?target_type=team')).body.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['scim.group.created', 'scim.group.renamed', 'scim.group.membership_synced', 'scim.group.deleted']));
  });

  it('rotation invalidates the old token at once; deletion invalidates the token and keeps memberships', async () => {
    const rotated = await owner.client.post(`/orgs/${orgId}/scim/rotate-token`);
    expect(rotated.status).toBe(200);
    expect((await scim('GET', '/Users')).status).toBe(401);
    const fresh = rotated.body.token as string;
    expect((await scim('GET', '/Users', undefined, fresh)).status).toBe(200);
    const before = (await members()).length;
    expect((await owner.client.delete(`/orgs/${orgId}/scim`)).status).toBe(200);
    expect((await scim('GET', '/Users', undefined, fresh)).status).toBe(401);
    expect((await members()).length).toBe(before);
  });
});
