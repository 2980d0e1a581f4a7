import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../helpers/test-server';

const BOOTSTRAP_KEY = 'sse-root-bootstrap-key';

/** The legacy HTTP+SSE transport, pointed at /mcp itself (as clients falling back from streamable HTTP do). */
async function sseClient(server: TestServer, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'sse-root-test', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  return client;
}

describe('MCP legacy SSE transport at /mcp', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ overrides: { auth: { api_key: BOOTSTRAP_KEY } } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('opens an SSE session on GET /mcp and runs tools through its messages endpoint', async () => {
    const client = await sseClient(server, { 'X-API-Key': BOOTSTRAP_KEY });
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('list_analyzers');
      const analyzers = (await client.callTool({ name: 'list_analyzers', arguments: {} })) as CallToolResult;
      expect(analyzers.isError ?? false).toBe(false);
      expect(JSON.stringify(analyzers.structuredContent)).toContain('terraform');
    } finally {
      await client.close();
    }
  });

  it('announces the legacy messages path as its POST endpoint', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream', 'x-api-key': BOOTSTRAP_KEY }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    controller.abort();
    expect(new TextDecoder().decode(value)).toMatch(/event: endpoint\ndata: \/mcp\/messages\?sessionId=[0-9a-f-]+/);
  });

  it('still needs a credential, and streamable HTTP keeps working at /mcp', async () => {
    const denied = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(denied.status).toBe(401);
    const client = new Client({ name: 'streamable', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': BOOTSTRAP_KEY } } }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
