import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';

describe('anonymous mode (auth.api_key unset)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers /health at the root and under /api/v1 without credentials', async () => {
    for (const url of [`${server.url}/health`, `${server.url}/api/v1/health`]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; timestamp: string };
      expect(body.status).toBe('healthy');
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    }
  });

  it("puts X-Request-ID on every response and honours a caller's value", async () => {
    const mine = await server.api('/analyzers', { headers: { 'X-Request-ID': 'trace-123' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-123');
    const generated = await server.api('/no/such/route/at/all');
    expect(generated.status).toBe(404);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await generated.json()).toHaveProperty('detail');
  });
});

describe('bootstrap key (auth.api_key set)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ overrides: { auth: { api_key: 'bootstrap-secret' } } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('401s without or with a wrong key, serves with the right one', async () => {
    const none = await server.api('/analyzers');
    expect(none.status).toBe(401);
    expect(((await none.json()) as { detail: string }).detail).toMatch(/credential|key/i);
    expect((await server.api('/analyzers', { headers: { 'X-API-Key': 'wrong' } })).status).toBe(401);
    expect((await server.api('/analyzers', { headers: { 'X-API-Key': 'bootstrap-secret' } })).status).toBe(200);
    expect((await server.api('/analyzers?api_key=bootstrap-secret')).status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('refuses an unauthenticated 10 MB ingest before reading it', async () => {
    const res = await server.api('/terraform/ns/ingest', { method: 'POST', body: 'x'.repeat(1024) });
    expect(res.status).toBe(401);
  });
});
