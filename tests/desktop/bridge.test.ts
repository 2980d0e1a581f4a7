import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootLocalEngine, type LocalEngine } from '../../apps/desktop/src/core/boot';
import { scaledPlan } from './plans';

let dir: string;
let engine: LocalEngine;
const json = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  engine.bridge({
    method,
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pw-desktop-'));
  engine = await bootLocalEngine({ userDataDir: dir, sleep: async () => {}, pollIntervalMs: 50 });
});
afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the local engine boot', () => {
  it('stores its SQLite data under the user-data folder and opens no port', async () => {
    expect(readdirSync(join(dir, 'data')).some((f) => f.endsWith('.db') || f.endsWith('.sqlite'))).toBe(true);
    expect(engine.config.auth.enabled).toBe(false);
    // Nothing listens: the only handles are the bridge's in-memory requests.
    const servers = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter((h) => h?.constructor?.name === 'Server');
    expect(servers).toHaveLength(0);
  });

  it('answers as the single local user, owner of the local org, without any credential', async () => {
    const res = await json('GET', '/api/v1/auth/me');
    expect(res.status).toBe(200);
    const me = JSON.parse(res.body);
    expect(me.org_id).toBeTruthy();
    expect(me.role).toBe('owner');
  });
});

describe('the request bridge', () => {
  it('carries statuses, headers and JSON bodies both ways', async () => {
    const res = await json('GET', '/api/v1/analyzers');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(JSON.parse(res.body).analyzers.map((a: { name: string }) => a.name)).toContain('terraform');

    const missing = await json('GET', '/api/v1/jobs/no-such-job');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).detail).toBeTruthy();

    const wrongType = await engine.bridge({ method: 'PATCH', path: '/api/v1/findings/x/y', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(415);
  });

  it('refuses a malformed request shape with 400 and a path outside the API with 404, never throwing', async () => {
    const bad = await engine.bridge({ method: 'TRACE', path: 'http://evil.example/', headers: {}, body: null });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).detail).toMatch(/Invalid bridge request/);
    const notApi = await engine.bridge({ method: 'GET', path: '/mcp', headers: {}, body: null });
    expect(notApi.status).toBe(404);
    const extra = await engine.bridge({ method: 'GET', path: '/api/v1/analyzers', headers: {}, body: null, exec: 'rm -rf' });
    expect(extra.status).toBe(400);
  });

  it('keeps the session cookie in the main process: set on register, sent back, cleared on logout, never shown to the renderer', async () => {
    const reg = await json('POST', '/api/v1/auth/register', { email: 'laptop@example.com', password: 'correct-horse-1', org_name: 'Laptop' });
    expect(reg.status).toBe(201);
    expect(reg.headers['set-cookie']).toBeUndefined();
    const me = JSON.parse((await json('GET', '/api/v1/auth/me')).body);
    expect(me.user?.email).toBe('laptop@example.com');
    // A cookie header from the renderer is ignored: the jar is the only source.
    const forged = await engine.bridge({ method: 'GET', path: '/api/v1/auth/me', headers: { cookie: 'mcp_session=forged' }, body: null });
    expect(JSON.parse(forged.body).user?.email).toBe('laptop@example.com');
    expect((await json('POST', '/api/v1/auth/logout', {})).status).toBeLessThan(300);
    const after = JSON.parse((await json('GET', '/api/v1/auth/me')).body);
    expect(after.user ?? null).toBeNull();
  });

  it('ingests a 10 MB plan through the bridge and refuses one over the limit with 413', async () => {
    const plan = scaledPlan(9.9 * 1024 * 1024);
    expect(Buffer.byteLength(plan.text)).toBeGreaterThan(9 * 1024 * 1024);
    const res = await engine.bridge({ method: 'POST', path: '/api/v1/terraform/big-plan/ingest', headers: { 'content-type': 'text/plain' }, body: plan.text });
    expect(res.status).toBe(201);
    const units = JSON.parse(res.body) as { hash: string }[];
    expect(units.length).toBeGreaterThan(1000);
    const listed = await json('GET', '/api/v1/big-plan/resources');
    expect(JSON.parse(listed.body)).toHaveLength(units.length);

    const tooBig = await engine.bridge({
      method: 'POST',
      path: '/api/v1/terraform/too-big/ingest',
      headers: { 'content-type': 'text/plain' },
      body: plan.text + ' '.repeat(600 * 1024),
    });
    expect(tooBig.status).toBe(413);
  }, 120_000);
});
