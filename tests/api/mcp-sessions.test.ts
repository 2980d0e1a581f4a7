import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, BOOTSTRAP_KEY, registerUser } from '../helpers/identity';
import type { TestServer } from '../helpers/test-server';

/**
 * MCP sessions are capped per principal, per org and in all (config `mcp`): before, one org's
 * key opened 999 sessions in seconds and every other org got 503 until they idled out (30 min).
 * Now a full principal or org gives up its oldest idle session, and one org never fills the
 * process. Raw streamable-HTTP requests, so each step is one visible HTTP status.
 */
const LIMITS = { max_sessions: 6, max_sessions_per_org: 4, max_sessions_per_principal: 3 };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

type Headers = Record<string, string>;

async function openSession(server: TestServer, headers: Headers): Promise<{ status: number; id: string | null; body: string }> {
  const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...headers, ...JSON_HEADERS }, body: JSON.stringify(INITIALIZE) });
  return { status: res.status, id: res.headers.get('mcp-session-id'), body: await res.text() };
}

/** tools/list on session `id`: 200 while it lives, 404 once it is gone. */
async function useSession(server: TestServer, headers: Headers, id: string): Promise<number> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...headers, ...JSON_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

/** An open event stream: the response is held and read, so it is neither collected nor closed. */
interface Stream {
  readonly abort: AbortController;
  readonly reading: Promise<unknown>;
}

/** Opens the server-to-client event stream of session `id` and keeps it open: the session is active. */
async function keepActive(server: TestServer, headers: Headers, id: string, streams: Stream[]): Promise<void> {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/mcp`, {
    headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  streams.push({ abort, reading: res.text().catch(() => null) });
}

async function closeAll(streams: Stream[]): Promise<void> {
  for (const stream of streams) stream.abort.abort();
  await Promise.all(streams.map((stream) => stream.reading));
}

async function memberKey(server: TestServer, headers: Headers): Promise<Headers> {
  const res = await fetch(`${server.url}/api/v1/auth/keys`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'member', name: 'mcp' }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { 'X-API-Key': ((await res.json()) as { key: string }).key };
}

async function orgKey(server: TestServer, email: string): Promise<Headers> {
  const { client } = await registerUser(server, email, { orgName: email.split('@')[0] });
  return memberKey(server, { cookie: client.cookie as string });
}

async function opened(server: TestServer, headers: Headers): Promise<string> {
  const res = await openSession(server, headers);
  expect(res.status, res.body).toBe(200);
  expect(res.id).toBeTruthy();
  return res.id as string;
}

describe('MCP session caps: one tenant cannot lock the others out', () => {
  let server: TestServer;
  const streams: Stream[] = [];
  const bootstrap = { 'X-API-Key': BOOTSTRAP_KEY };
  let a1: Headers;
  let a2: Headers;
  let b: Headers;
  let c: Headers;
  const s: Record<string, string> = {};

  beforeAll(async () => {
    server = await startAuthServer({ overrides: { mcp: LIMITS } });
    a1 = await memberKey(server, bootstrap);
    a2 = await memberKey(server, bootstrap);
    b = await orgKey(server, 'org-b@example.com');
    c = await orgKey(server, 'org-c@example.com');
  });
  afterAll(async () => {
    await closeAll(streams);
    await server.close();
  });

  it('a principal at its cap gives up its oldest idle session; its active one survives', async () => {
    for (const name of ['s1', 's2', 's3']) s[name] = await opened(server, a1);
    await keepActive(server, a1, s.s1, streams); // s1 is the oldest but active
    s.s4 = await opened(server, a1);
    expect(await useSession(server, a1, s.s2)).toBe(404);
    for (const name of ['s1', 's3', 's4']) expect(await useSession(server, a1, s[name])).toBe(200);
  });

  it('an org at its cap gives up its oldest idle session, whoever opened it', async () => {
    s.t1 = await opened(server, a2); // org A: s1, s3, s4, t1
    s.t2 = await opened(server, a2); // the org's oldest idle one is s3
    expect(await useSession(server, a1, s.s3)).toBe(404);
    for (const [name, key] of [
      ['s1', a1],
      ['s4', a1],
      ['t1', a2],
      ['t2', a2],
    ] as const)
      expect(await useSession(server, key, s[name])).toBe(200);
    // Org A keeps trying: it only ever replaces its own sessions.
    for (let i = 0; i < 10; i += 1) await opened(server, i % 2 ? a1 : a2);
    expect(await useSession(server, a1, s.s1)).toBe(200);
  });

  it('other orgs still open and use sessions; when the process is full the largest org gives one up', async () => {
    const b1 = await opened(server, b);
    const c1 = await opened(server, c);
    // 4 (org A) + 1 + 1 = 6, the total: B's next session costs org A an idle one, not B or C.
    const b2 = await opened(server, b);
    for (const [id, key] of [
      [b1, b],
      [c1, c],
      [b2, b],
    ] as const)
      expect(await useSession(server, key, id)).toBe(200);
    expect(await useSession(server, a1, s.s1)).toBe(200);
  });

  it('a session is still bound to its principal, and an unknown id is 404', async () => {
    expect(await useSession(server, a2, s.s1)).toBe(404);
    expect(await useSession(server, a1, 'no-such-session')).toBe(404);
  });
});

describe('MCP session caps when every session is active', () => {
  let server: TestServer;
  const streams: Stream[] = [];
  beforeAll(async () => {
    server = await startAuthServer({ overrides: { mcp: LIMITS } });
  });
  afterAll(async () => {
    await closeAll(streams);
    await server.close();
  });

  it('a principal whose sessions are all active is refused (429) without touching them; others are not', async () => {
    const a = await memberKey(server, { 'X-API-Key': BOOTSTRAP_KEY });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(await opened(server, a));
      await keepActive(server, a, ids[i], streams);
    }
    const refused = await openSession(server, a);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { message: expect.stringMatching(/too many open mcp sessions/i) } });
    for (const id of ids) expect(await useSession(server, a, id)).toBe(200);
    const other = await orgKey(server, 'calm@example.com');
    expect(await useSession(server, other, await opened(server, other))).toBe(200);
    // Parallel initializations are counted one by one: the principal never exceeds its cap.
    const burst = await Promise.all(Array.from({ length: 8 }, () => openSession(server, a)));
    expect(burst.every((r) => r.status === 429)).toBe(true);
  });
});
