import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

const OLLAMA = { llm_backend: 'ollama', model: 'llama3.1:8b' };
const SMALL_PLAN = 'tfplan-json/terraform-showjson-basic-delete.json'; // 2 resource changes: inline
const LARGER_PLAN = 'tfplan-json/checkov-aws-github-oidc-iam-modules.json'; // 9: background job

let fake: FakeProvider;
let server: TestServer;
let client: Client;
beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake });
  client = new Client({ name: 'planwarden-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('server-side analysis over MCP', () => {
  it('analyses a small plan inline and returns the fenced report; the sync job cannot be cancelled', async () => {
    const result = await call('analyze', { analyzer: 'terraform', namespace: 'mcp-sync', raw_input: corpusFile(SMALL_PLAN).toString('utf8'), ...OLLAMA });
    expect(result.isError, text(result)).toBeFalsy();
    const body = result.structuredContent as { status: string; job_id: string; report_markdown: string; resource_count: number };
    expect(body).toMatchObject({ status: 'done', resource_count: 2 });
    expect(body.report_markdown).toContain('test_instance.test');
    expect(text(result)).toContain('UNIT_BODY_BEGIN');
    expect(text(result)).toContain(body.report_markdown);

    const job = await call('get_job', { job_id: body.job_id });
    expect(job.structuredContent).toMatchObject({ job_id: body.job_id, status: 'done', mode: 'sync', processed_count: 2 });
    const cancel = await call('cancel_job', { job_id: body.job_id });
    expect(cancel.isError).toBe(true);
    expect(text(cancel)).toMatch(/^409 Conflict: A sync job cannot be cancelled/);
  });

  it('queues a larger auto-routed plan and follows the job with get_job', async () => {
    const result = await call('analyze', { namespace: 'mcp-async', raw_input: corpusFile(LARGER_PLAN).toString('utf8'), ...OLLAMA });
    expect(result.isError, text(result)).toBeFalsy();
    const { job_id, status } = result.structuredContent as { job_id: string; status: string };
    expect(status).toBe('queued');
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 400; i += 1) {
      job = (await call('get_job', { job_id })).structuredContent as Record<string, unknown>;
      if (['done', 'failed', 'cancelled'].includes(String(job.status))) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(job).toMatchObject({ status: 'done', analyzer: 'auto', mode: 'async' });
    expect(job.processed_count).toBe(job.total_count);
    const report = await call('get_report', { namespace: 'mcp-async' });
    const http = (await (await server.api('/mcp-async/report')).json()) as { markdown_report: string };
    const untimed = (s: string) => s.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');
    expect(untimed((report.structuredContent as { report: string }).report)).toBe(untimed(http.markdown_report));
  });

  it('answers a model off the catalogue with 400 and an unknown analyzer with 404', async () => {
    const bad = await call('analyze', { analyzer: 'terraform', namespace: 'mcp-bad', raw_input: '{}', llm_backend: 'ollama', model: 'not-a-model' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^400 Bad Request: Model 'not-a-model'/);
    const unknown = await call('analyze', { analyzer: 'nope', namespace: 'mcp-bad', raw_input: '{}', ...OLLAMA });
    expect(text(unknown)).toMatch(/^404 Not Found/);
  });
});
