import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

type TransportKind = 'streamable' | 'sse';
const BOOTSTRAP = 'bootstrap-key-for-mcp-tests';
const PLAN = 'tfplan-json/terraform-showjson-basic-delete.json';
const NAMESPACE = 'org-a-review';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function connect(server: TestServer, kind: TransportKind, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'planwarden-test', version: '1.0.0' });
  await client.connect(
    kind === 'streamable'
      ? new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } })
      : new SSEClientTransport(new URL(`${server.url}/mcp/sse`), { requestInit: { headers } }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content[0]?.type === 'text' ? result.content[0].text : '';
}

/** POST /auth/keys as `headers`' principal; returns the raw key. */
async function createKey(server: TestServer, headers: Record<string, string>, role: string): Promise<string> {
  const res = await server.api('/auth/keys', { method: 'POST', headers, json: { role, name: `mcp-${role}` } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

let fake: FakeProvider;
let server: TestServer;
const keys: Record<'member' | 'viewer' | 'other', Record<string, string>> = { member: {}, viewer: {}, other: {} };
let otherCookie: Record<string, string>;
let otherOrgId: string;
let hashes: string[];
let jobId: string;

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake, overrides: { auth: { api_key: BOOTSTRAP, enabled: true } } });
  const bootstrap = { 'X-API-Key': BOOTSTRAP };
  keys.member = { 'X-API-Key': await createKey(server, bootstrap, 'member') };
  keys.viewer = { 'X-API-Key': await createKey(server, bootstrap, 'viewer') };
  // A second org: a registered user owning it, and a member key of that org.
  const reg = await server.api('/auth/register', {
    method: 'POST',
    json: { email: 'owner@other.example', password: 'a-long-password', org_name: 'Other org' },
  });
  expect(reg.status, await reg.clone().text()).toBe(201);
  otherOrgId = ((await reg.json()) as { org_id: string }).org_id;
  const cookie = reg.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('mcp_session='))!;
  otherCookie = { Cookie: cookie };
  keys.other = { 'X-API-Key': await createKey(server, otherCookie, 'member') };

  // Org A's data, written over MCP with its member key: a namespace and a sync job's id.
  const client = await connect(server, 'streamable', keys.member);
  const ingest = await call(client, 'ingest', { analyzer: 'terraform', namespace: NAMESPACE, raw_input: corpusFile(PLAN).toString('utf8') });
  expect(ingest.isError, text(ingest)).toBeFalsy();
  hashes = (ingest.structuredContent as { units: { hash: string }[] }).units.map((u) => u.hash);
  const analyze = await call(client, 'analyze', {
    analyzer: 'terraform',
    namespace: 'org-a-server',
    llm_backend: 'ollama',
    model: 'llama3.1:8b',
    raw_input: corpusFile('tfplan-json/terraform-showjson-drift.json').toString('utf8'),
  });
  expect(analyze.isError, text(analyze)).toBeFalsy();
  jobId = (analyze.structuredContent as { job_id: string }).job_id;
  await client.close();
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe('MCP transport authentication', () => {
  it('answers 401 over HTTP, before any MCP message, without or with a wrong credential', async () => {
    for (const headers of [{}, { 'X-API-Key': 'wrong-key' }] as Record<string, string>[]) {
      const post = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(INITIALIZE),
      });
      expect(post.status).toBe(401);
      expect(await post.json()).toHaveProperty('detail');
      expect((await fetch(`${server.url}/mcp/sse`, { headers })).status).toBe(401);
      expect((await fetch(`${server.url}/mcp/messages?sessionId=x`, { method: 'POST', headers, body: '{}' })).status).toBe(401);
    }
    await expect(connect(server, 'streamable', {})).rejects.toThrow();
    await expect(connect(server, 'sse', {})).rejects.toThrow();
  });

  it('accepts the session cookie as the HTTP API does, scoped to its org', async () => {
    const client = await connect(server, 'streamable', otherCookie);
    const analyzers = await call(client, 'list_analyzers');
    expect(analyzers.isError, text(analyzers)).toBeFalsy();
    const report = await call(client, 'get_report', { namespace: NAMESPACE });
    expect(text(report)).toMatch(/^404 Not Found/);
    await client.close();
  });

  it('binds a session to the principal that opened it', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: keys.member } });
    const client = new Client({ name: 'planwarden-test', version: '1.0.0' });
    await client.connect(transport);
    const hijack = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...keys.other, 'mcp-session-id': transport.sessionId!, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(hijack.status).toBe(404);
    await client.close();
  });
});

describe.each(['streamable', 'sse'] as TransportKind[])('MCP roles and org scoping over %s', (kind) => {
  it("a key of another org sees none of this org's resources", async () => {
    const client = await connect(server, kind, keys.other);
    try {
      // This org's namespace does not exist for the other org: 404, exactly like a missing one.
      expect(text(await call(client, 'next_resource', { namespace: NAMESPACE }))).toMatch(/^404 Not Found/);
      expect(text(await call(client, 'get_report', { namespace: NAMESPACE }))).toMatch(/^404 Not Found/);
      const payload = {
        summary: 's',
        findings: [
          {
            title: 't',
            severity: 'LOW',
            rule_id: 'R',
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 'n',
            confidence: 'LOW',
            evidence: [],
            resource_address: 'a',
            tags: [],
          },
        ],
      };
      for (const hash of hashes) {
        expect(text(await call(client, 'submit_analysis', { hash, analysis: payload }))).toBe('404 Not Found: Resource not found');
      }
      expect(text(await call(client, 'get_job', { job_id: jobId }))).toMatch(/^404 Not Found/);
      expect(text(await call(client, 'cancel_job', { job_id: jobId }))).toMatch(/^404 Not Found/);
    } finally {
      await client.close();
    }
    // Org A still has all its resources unanalysed.
    const own = await connect(server, kind, keys.member);
    const next = await call(own, 'next_resource', { namespace: NAMESPACE });
    expect(hashes).toContain((next.structuredContent as { hash: string }).hash);
    expect((await call(own, 'get_job', { job_id: jobId })).structuredContent).toMatchObject({ job_id: jobId, status: 'done' });
    await own.close();
  });

  it('a viewer may list analyzers but not read rules, ingest or submit (403)', async () => {
    const client = await connect(server, kind, keys.viewer);
    try {
      expect((await call(client, 'list_analyzers')).isError).toBeFalsy();
      const payload = {
        summary: 's',
        findings: [
          {
            title: 't',
            severity: 'LOW',
            rule_id: 'R',
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 'n',
            confidence: 'LOW',
            evidence: [],
            resource_address: 'a',
            tags: [],
          },
        ],
      };
      const submit = await call(client, 'submit_analysis', { hash: hashes[0], analysis: payload });
      expect(submit.isError).toBe(true);
      expect(text(submit)).toBe('403 Forbidden: This action needs the member role');
      expect(text(await call(client, 'ingest', { analyzer: 'terraform', namespace: 'viewer-ns', raw_input: corpusFile(PLAN).toString('utf8') }))).toMatch(
        /^403 Forbidden/,
      );
      expect(text(await call(client, 'next_resource', { namespace: NAMESPACE }))).toMatch(/^403 Forbidden/);
      expect((await client.listResources()).resources).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('MCP and a locked org', () => {
  it('answers 423 as the HTTP API does', async () => {
    const lock = await server.api(`/admin/organizations/${otherOrgId}/lock`, { method: 'PATCH', headers: { 'X-API-Key': BOOTSTRAP }, json: { locked: true } });
    expect(lock.status, await lock.clone().text()).toBe(200);
    const client = await connect(server, 'streamable', keys.other);
    const result = await call(client, 'list_analyzers');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^423 Locked/);
    expect((await server.api('/analyzers', { headers: keys.other })).status).toBe(423);
    await client.close();
  });
});
