import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../server/src/routes/index';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, BOOTSTRAP_KEY, type Client, FakeClock, registerUser, startAuthServer } from '../helpers/identity';

/**
 * Issue 14, HTTP hardening: a hostile page cannot change state through a signed-in browser
 * (JSON routes take only JSON; cross-site Origin / Fetch Metadata refused on cookie requests),
 * and query parameters are strict (identity-api.md "Errors": 400 unknown filter, 422 out of range).
 */
let server: TestServer;
let owner: Client;
let ownerCookie: string;
const clock = new FakeClock(new Date('2026-11-22T10:00:00.000Z'));

beforeAll(async () => {
  server = await startAuthServer({ clock });
  owner = (await registerUser(server, 'owner@example.com', { orgName: 'Acme' })).client;
  ownerCookie = owner.cookie as string;
});
afterAll(async () => {
  await server.close();
});

/** A request as the signed-in owner's browser would send it: the session cookie plus `headers`. */
function asBrowser(method: string, path: string, body: RequestInit['body'], headers: Record<string, string>) {
  return server.api(path, { method, body, headers: { cookie: ownerCookie, ...headers } });
}

async function keyCount(): Promise<number> {
  const list = await owner.get('/auth/keys');
  expect(list.status).toBe(200);
  return list.body.keys.length;
}

describe('cross-site request forgery backstop', () => {
  it('refuses a text/plain or untyped body on a JSON route (415) and changes nothing', async () => {
    const before = await keyCount();
    // What a hostile page can send without a CORS preflight: a text/plain string, an untyped Blob.
    const plain = await asBrowser('POST', '/auth/keys', '{"role":"owner","name":"planted"}', { 'content-type': 'text/plain;charset=UTF-8' });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { detail: string }).detail).toMatch(/application\/json/);
    const untyped = await asBrowser('POST', '/auth/keys', new Uint8Array(Buffer.from('{"role":"owner"}')), {});
    expect(untyped.status).toBe(415);
    const form = await asBrowser('PATCH', '/auth/me', 'name=planted', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(await keyCount()).toBe(before);
    expect((await owner.get('/auth/me')).body.user.name).not.toBe('planted');
  });

  it('still accepts JSON media types and an empty body without a content type', async () => {
    expect((await asBrowser('PATCH', '/auth/me', JSON.stringify({ name: 'Ada' }), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await asBrowser('PATCH', '/auth/me', JSON.stringify({ name: 'Ada L' }), { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    // The retry body is optional: no body, no content type reaches the handler (404 unknown job), not 415.
    expect((await asBrowser('POST', '/jobs/no-such-job/retry', undefined, {})).status).toBe(404);
  });

  it('refuses a cookie-authenticated state change from another site (403)', async () => {
    const before = await keyCount();
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ role: 'owner', name: 'cross-site' });
    const hostile: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: server.url.replace('127.0.0.1', '127.0.0.1.evil.example') },
    ];
    for (const headers of hostile) {
      const res = await asBrowser('POST', '/auth/keys', body, { ...json, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toHaveProperty('detail');
    }
    expect((await asBrowser('DELETE', '/auth/keys/whatever', undefined, { origin: 'https://evil.example' })).status).toBe(403);
    // Not only JSON routes: a raw ingest is refused too.
    expect((await asBrowser('POST', '/acme-ns/ingest/auto', 'resource "x" "y" {}', { origin: 'https://evil.example' })).status).toBe(403);
    expect(await keyCount()).toBe(before);
  });

  it('lets same-origin, Origin-less and API-key requests through', async () => {
    const body = JSON.stringify({ role: 'viewer', name: 'ok' });
    const json = { 'content-type': 'application/json' };
    expect((await asBrowser('POST', '/auth/keys', body, { ...json, origin: server.url, 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    expect((await asBrowser('POST', '/auth/keys', body, json)).status).toBe(201);
    // Reads are never blocked; an API key is not ambient authority, so Origin does not matter.
    expect((await asBrowser('GET', '/auth/keys', undefined, { origin: 'https://evil.example' })).status).toBe(200);
    const withKey = await server.api('/auth/keys', {
      method: 'POST',
      json: { role: 'viewer' },
      headers: { 'X-API-Key': BOOTSTRAP_KEY, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(withKey.status).toBe(201);
  });
});

describe('strict query parameters', () => {
  it('every route declares its query parameters', () => {
    const undeclared = allRoutes(server.services)
      .filter((r) => !r.query)
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  it('answers 400 naming an unknown parameter, with or without declared parameters', async () => {
    const boot = bootstrap(server);
    const findings = await boot.get('/findings?colour=red');
    expect(findings.status).toBe(400);
    expect(findings.body.detail).toContain("'colour'");
    const analyzers = await boot.get('/analyzers?verbose=1');
    expect(analyzers.status).toBe(400);
    expect(analyzers.body.detail).toContain("'verbose'");
    expect((await boot.get('/metrics/audit?actor=someone')).status).toBe(400);
    // The credential the auth layer reads is always accepted.
    expect((await server.api(`/analyzers?api_key=${BOOTSTRAP_KEY}`)).status).toBe(200);
  });

  it('answers 400 for an unknown filter value and 422 for an out-of-range one', async () => {
    const boot = bootstrap(server);
    const status = await boot.get('/jobs?status=weird');
    expect(status.status).toBe(400);
    expect(status.body.detail).toContain('status');
    expect((await boot.get('/findings?severity=SEVERE')).status).toBe(400);
    expect((await boot.get('/findings?limit=0')).status).toBe(422);
    expect((await boot.get('/metrics/audit?limit=1001')).status).toBe(422);
    expect((await boot.get('/metrics/summary?days=x')).status).toBe(422);
  });

  it('accepts since/until as a plain date (inclusive whole days) or a date-time', async () => {
    const boot = bootstrap(server);
    expect((await boot.post('/auth/keys', { role: 'viewer', name: 'audited' })).status).toBe(201); // audited at the fake clock's 10:00Z
    const count = async (q: string) => {
      const res = await boot.get(`/metrics/audit?action=api_key.create&${q}`);
      expect(res.status, q).toBe(200);
      return res.body.events.length as number;
    };
    expect(await count('since=2026-11-22&until=2026-11-22')).toBeGreaterThan(0);
    expect(await count('since=2026-11-22T09:59:59Z&until=2026-11-22T10:00:00.000%2B00:00')).toBeGreaterThan(0);
    expect(await count('until=2026-11-21')).toBe(0);
    expect(await count('since=2026-11-23')).toBe(0);
    expect((await boot.get('/metrics/audit/export?since=2026-11-22')).status).toBe(200);
    for (const bad of ['since=yesterday', 'since=2026-13-01', 'until=2026-11-22T10:00:00']) {
      expect((await boot.get(`/metrics/audit?${bad}`)).status, bad).toBe(422);
    }
  });
});
