/**
 * Patterns a tenant supplies run on a linear-time engine (docs/decisions.md "Tenant patterns run
 * on a linear-time engine"). Each test sends a catastrophic-backtracking pattern and an input
 * sized so that JavaScript's RegExp would need about 2^40 steps (hours), through the real HTTP
 * surface of a server running as its own process, and asserts that the request answers and that
 * /health answers while it runs. The server is a child process so that a blocked event loop
 * there shows here as a test timeout instead of freezing the test runner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

const EVIL_PATTERN = '^(a+)+$';
const EVIL_NAME = `${'a'.repeat(40)}!`;
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

let server: ServerProcess;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'planwarden-patterns-'));
  server = await spawnServer({ dataDir });
}, 90_000);
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const health = async () => (await fetch(`${server.url}/health`)).status;

describe('SCIM group_role_mappings', () => {
  let token: string;
  const scim = async (method: string, path: string, body?: unknown) =>
    json(
      await fetch(`${server.url}/api/v1/scim/v2/default${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const roleOf = async (userId: string) =>
    ((await json(await server.api('/orgs/default/members'))).body.members as { user_id: string; role: string }[]).find((m) => m.user_id === userId)?.role;
  const addToGroup = (groupId: string, userId: string) =>
    scim('PATCH', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: userId }] }] });

  beforeAll(async () => {
    const created = await json(
      await server.api('/orgs/default/scim', {
        method: 'POST',
        json: {
          default_role: 'viewer',
          group_role_mappings: [
            { pattern: EVIL_PATTERN, role: 'admin' },
            { pattern: '^Eng', role: 'member' },
          ],
        },
      }),
    );
    expect(created.status).toBe(201);
    token = created.body.token;
  });

  it('a catastrophic pattern against a crafted group name: the member PATCH answers, and /health meanwhile', async () => {
    const user = await scim('POST', '/Users', { userName: 'redos@corp.test' });
    const group = await scim('POST', '/Groups', { displayName: EVIL_NAME, members: [] });
    expect(group.status).toBe(201);
    const patch = addToGroup(group.body.id, user.body.id);
    expect(await health()).toBe(200);
    expect((await patch).status).toBe(200);
    expect(await health()).toBe(200);
    expect(await roleOf(user.body.id)).toBe('viewer'); // no mapping matches `a…a!`
  });

  it('ordinary mappings still apply: first match wins, case-sensitive', async () => {
    const user = await scim('POST', '/Users', { userName: 'mapped@corp.test' });
    const eng = await scim('POST', '/Groups', { displayName: 'Engineering', members: [] });
    await addToGroup(eng.body.id, user.body.id);
    expect(await roleOf(user.body.id)).toBe('member');
    const admins = await scim('POST', '/Groups', { displayName: 'aaaa', members: [] });
    await addToGroup(admins.body.id, user.body.id);
    expect(await roleOf(user.body.id)).toBe('admin'); // the first mapping wins over ^Eng
    const other = await scim('POST', '/Users', { userName: 'lower@corp.test' });
    const lower = await scim('POST', '/Groups', { displayName: 'engineering', members: [] });
    await addToGroup(lower.body.id, other.body.id);
    expect(await roleOf(other.body.id)).toBe('viewer');
  });

  it('a pattern the linear-time engine cannot compile is refused with 422 when saved', async () => {
    for (const pattern of ['(a)\\1', 'x(?=y)', '([unclosed']) {
      const res = await json(await server.api('/orgs/default/scim', { method: 'PATCH', json: { group_role_mappings: [{ pattern, role: 'admin' }] } }));
      expect(res.status, pattern).toBe(422);
      expect(res.body.detail).toMatch(/group_role_mappings\.0\.pattern/);
    }
  });
});

describe("CEL matches() in a custom rule's check", () => {
  it('a catastrophic pattern against a crafted line: the analysis answers, and /health meanwhile; ordinary checks still match', async () => {
    const rule = async (title: string, check: string) => {
      const res = await json(
        await server.api('/orgs/default/rules', {
          method: 'POST',
          json: { title, description: `Check (CEL): ${check}`, category: 'built-in-terraform', severity: 'HIGH', analyzers: ['terraform'] },
        }),
      );
      expect(res.status).toBe(201);
      return res.body.rule_id as string;
    };
    const evil = await rule('Evil pattern', `lines.exists(l, l.matches("^bucket = \\"(a+)+\\"$"))`);
    const plain = await rule('Plain pattern', `lines.exists(l, l.matches("^bucket = \\"a+!\\"$"))`);
    const hcl = `resource "aws_s3_bucket" "b" {\n  bucket = "${EVIL_NAME}"\n}\n`;
    const analysis = server.api('/terraform/redos/analyze', { method: 'POST', json: { raw_input: hcl } });
    expect(await health()).toBe(200);
    const res = await analysis;
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await health()).toBe(200);
    const found = async (ruleId: string) => ((await json(await server.api(`/findings?rule_id=${ruleId}`))).body.findings as unknown[]).length;
    expect(await found(evil)).toBe(0);
    expect(await found(plain)).toBe(1);
  });
});
