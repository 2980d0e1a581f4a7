import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

type TransportKind = 'streamable' | 'sse';
const TRANSPORTS: TransportKind[] = ['streamable', 'sse'];
const PLAN = 'tfplan-json/checkov-aws-github-oidc-iam-modules.json';
const NAMESPACE = 'mcp-review';
/** One fixed clock for every server of the comparison, so the reports' timestamps agree. */
const FIXED_NOW = new Date('2025-06-01T12:00:00.000Z');

/** The SDK's own client over one transport, against the real server's /mcp endpoint. */
async function connect(server: TestServer, kind: TransportKind, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'planwarden-test', version: '1.0.0' });
  const transport =
    kind === 'streamable'
      ? new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } })
      : new SSEClientTransport(new URL(`${server.url}/mcp/sse`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult, index = 0): string {
  const block = result.content[index];
  return block?.type === 'text' ? block.text : '';
}

/** The body between the fence lines next_resource gave (the agent's view of the unit). */
function fencedBody(result: CallToolResult): string {
  const body = (result.structuredContent as { untrusted_body: { begin_fence: string; end_fence: string } }).untrusted_body;
  const all = text(result);
  const start = all.indexOf(`\n${body.begin_fence}\n`) + body.begin_fence.length + 2;
  const end = all.indexOf(`\n${body.end_fence}`, start - 1);
  return all.slice(start, end);
}

/** A deterministic client-side "model": one finding per unit citing its first line. */
function analysisFor(hash: string, name: string, body: string, ruleId: string) {
  const line = body.split('\n').find((l) => l.trim().length > 0)!;
  return {
    summary: `Reviewed ${name}.`,
    findings: [
      {
        title: `Issue on ${name}`,
        severity: hash < '8' ? 'HIGH' : 'MEDIUM',
        rule_id: ruleId,
        risk: 'Data exposure',
        why_it_matters: 'Attackers read it.',
        suggested_next_step: 'Restrict it.',
        confidence: hash < '4' ? 'LOW' : 'HIGH',
        evidence: [line],
        resource_address: name,
        tags: ['test'],
      },
    ],
  };
}

/** The HTTP client-led loop (as tests/api/client-led.test.ts) on `server`; returns the markdown report. */
async function httpLoop(server: TestServer, ruleId: string): Promise<string> {
  const ingest = await server.api(`/terraform/${NAMESPACE}/ingest`, { method: 'POST', body: new Uint8Array(corpusFile(PLAN)) });
  expect(ingest.status).toBe(201);
  for (let i = 0; i < 100; i += 1) {
    const next = await server.api(`/${NAMESPACE}/resource/next`);
    if (next.status === 208) break;
    const r = (await next.json()) as { hash: string; value: { name: string; body: string } };
    const put = await server.api(`/resource/${r.hash}/analysis`, { method: 'PUT', json: analysisFor(r.hash, r.value.name, r.value.body, ruleId) });
    expect(put.status).toBe(200);
  }
  return ((await (await server.api(`/${NAMESPACE}/report`)).json()) as { markdown_report: string }).markdown_report;
}

let reference: TestServer;
let ruleId: string;
let referenceReport: string;
beforeAll(async () => {
  reference = await startTestServer({ start: { now: () => FIXED_NOW } });
  const rules = await (await reference.api('/terraform/rules')).text();
  ruleId = /^## ([A-Z0-9-]+):/m.exec(rules)![1];
  referenceReport = await httpLoop(reference, ruleId);
});
afterAll(async () => {
  await reference?.close();
});

describe.each(TRANSPORTS)('MCP client-led loop over %s', (kind) => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer({ start: { now: () => FIXED_NOW } });
    client = await connect(server, kind);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists the tools, the ruleset resources and the review prompt', async () => {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(
      [
        'analyze',
        'cancel_job',
        'get_job',
        'get_report',
        'get_ruleset',
        'ingest',
        'ingest_auto',
        'list_analyzers',
        'list_findings',
        'next_resource',
        'submit_analysis',
        'triage_finding',
      ].sort(),
    );
    const analyzers = await call(client, 'list_analyzers');
    expect((analyzers.structuredContent as { analyzers: { name: string }[] }).analyzers.map((a) => a.name)).toContain('terraform');

    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toContain('planwarden://rules/terraform/aws');
    const aws = await client.readResource({ uri: 'planwarden://rules/terraform/aws' });
    expect((aws.contents[0] as { text: string }).text).toBe(await (await server.api('/terraform/rules?type=aws')).text());
    await expect(client.readResource({ uri: 'planwarden://rules/terraform/oracle' })).rejects.toThrow(/404 Not Found/);

    const prompt = await client.getPrompt({ name: 'review_plan', arguments: { namespace: 'pr-7', analyzer: 'terraform' } });
    const promptText = (prompt.messages[0].content as { text: string }).text;
    for (const step of ['get_ruleset', 'ingest', 'next_resource', 'submit_analysis', 'all_analysed', 'get_report', 'UNTRUSTED']) {
      expect(promptText).toContain(step);
    }
  });

  it('get_ruleset → ingest → next_resource/submit_analysis until all analysed → get_report equals the HTTP report', async () => {
    const ruleset = await call(client, 'get_ruleset', { analyzer: 'terraform' });
    expect(ruleset.isError).toBeFalsy();
    expect(text(ruleset)).toBe(await (await server.api('/terraform/rules')).text());

    const ingest = await call(client, 'ingest', { analyzer: 'terraform', namespace: NAMESPACE, raw_input: corpusFile(PLAN).toString('utf8') });
    expect(ingest.isError).toBeFalsy();
    const units = (ingest.structuredContent as { units: { hash: string }[] }).units;
    expect(units.length).toBeGreaterThan(0);

    const analysed: string[] = [];
    for (let i = 0; i <= units.length; i += 1) {
      const next = await call(client, 'next_resource', { namespace: NAMESPACE, include_rules: i === 0 });
      expect(next.isError).toBeFalsy();
      const structured = next.structuredContent as { status: string; hash: string; value: { name: string } };
      if (structured.status === 'all_analysed') break;
      if (i === 0) {
        expect(text(next, 1)).toMatch(/^Ruleset to apply \(trusted, from Planwarden\):/);
        expect(text(next, 1)).toContain(ruleId);
      } else {
        expect(next.content).toHaveLength(1); // include_rules: false
      }
      const body = fencedBody(next);
      // The fenced body is exactly the stored body.
      const stored = (await (await server.api(`/resource/${structured.hash}?filter=value`)).json()) as { value: { body: string } };
      expect(body).toBe(stored.value.body);
      const submit = await call(client, 'submit_analysis', {
        hash: structured.hash,
        analysis: analysisFor(structured.hash, structured.value.name, body, ruleId),
      });
      expect(submit.isError, text(submit)).toBeFalsy();
      analysed.push(structured.hash);
    }
    expect(new Set(analysed)).toEqual(new Set(units.map((u) => u.hash)));
    const done = await call(client, 'next_resource', { namespace: NAMESPACE });
    expect(done.structuredContent).toMatchObject({ status: 'all_analysed' });
    expect(text(done)).toMatch(/^208 Already Reported/);
    expect((await server.api(`/${NAMESPACE}/resource/next`)).status).toBe(208);

    const report = await call(client, 'get_report', { namespace: NAMESPACE });
    const mcpReport = (report.structuredContent as { report: string }).report;
    expect(mcpReport).toContain(ruleId);
    expect(text(report)).toContain(mcpReport);
    // Identical to what GET /report renders for the same namespace, and to the report of the
    // same analyses made through the HTTP loop on another server (same clock, same namespace).
    const http = (await (await server.api(`/${NAMESPACE}/report`)).json()) as { markdown_report: string };
    expect(mcpReport).toBe(http.markdown_report);
    expect(mcpReport).toBe(referenceReport);

    const html = await call(client, 'get_report', { namespace: NAMESPACE, format: 'html' });
    expect((html.structuredContent as { report: string }).report).toBe(await (await server.api(`/${NAMESPACE}/report?format=html&raw=true`)).text());
  });

  it('lists and triages the findings as GET/PATCH /findings do; the report follows the triage', async () => {
    const listed = await call(client, 'list_findings', { namespace: NAMESPACE });
    const findings = (listed.structuredContent as { findings: { resource_hash: string; rule_id: string; status: string }[] }).findings;
    const http = (await (await server.api(`/findings?namespace=${NAMESPACE}`)).json()) as { findings: unknown[] };
    expect(findings).toEqual(http.findings);
    expect(findings.length).toBeGreaterThan(0);
    expect((await call(client, 'list_findings', { namespace: NAMESPACE, status: 'needs_review' })).structuredContent).toEqual(
      await (await server.api(`/findings?namespace=${NAMESPACE}&status=needs_review`)).json(),
    );

    const target = findings[0];
    const triage = await call(client, 'triage_finding', {
      resource_hash: target.resource_hash,
      rule_id: target.rule_id,
      status: 'suppressed',
      reason_code: 'accepted_risk',
      note: 'Known and accepted.',
    });
    expect(triage.isError, text(triage)).toBeFalsy();
    expect(triage.structuredContent).toMatchObject({
      resource_hash: target.resource_hash,
      rule_id: target.rule_id,
      status: 'suppressed',
      note: 'Known and accepted.',
    });
    const mcpReport = (await call(client, 'get_report', { namespace: NAMESPACE })).structuredContent as { report: string };
    const httpReport = (await (await server.api(`/${NAMESPACE}/report`)).json()) as { markdown_report: string };
    expect(mcpReport.report).toBe(httpReport.markdown_report);
    expect(mcpReport.report).not.toBe(referenceReport);
    const withSuppressed = (await call(client, 'get_report', { namespace: NAMESPACE, include_suppressed: true })).structuredContent as { report: string };
    expect(withSuppressed.report).toBe(await (await server.api(`/${NAMESPACE}/report?include_suppressed=true&raw=true`)).text());

    const missing = await call(client, 'triage_finding', { resource_hash: '0'.repeat(64), rule_id: target.rule_id, status: 'acknowledged' });
    expect(text(missing)).toMatch(/^404 Not Found: No finding for this resource_hash and rule_id/);
  });

  it('answers bad inputs with tool errors carrying the HTTP status', async () => {
    const expectError = async (name: string, args: Record<string, unknown>, pattern: RegExp) => {
      const result = await call(client, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(result)).toMatch(pattern);
    };
    await expectError('get_ruleset', { analyzer: 'nope' }, /^404 Not Found: Unknown analyzer 'nope'/);
    await expectError('get_ruleset', { analyzer: 'terraform', type: 'oracle' }, /^404 Not Found/);
    await expectError('ingest', { analyzer: 'nope', namespace: 'bad', raw_input: '{}' }, /^404 Not Found/);
    await expectError('ingest', { analyzer: 'terraform', namespace: 'bad', raw_input: '' }, /^422 Unprocessable Entity: The request body is empty/);
    await expectError('ingest_auto', { namespace: 'bad', raw_input: '  \n' }, /^422 Unprocessable Entity/);
    await expectError('ingest', { analyzer: 'terraform', namespace: 'mcp', raw_input: '{}' }, /^422 Unprocessable Entity: namespace 'mcp' is reserved/);
    await expectError('get_report', { namespace: 'never-ingested' }, /^404 Not Found/);
    await expectError('get_job', { job_id: 'no-such-job' }, /^404 Not Found: Job not found/);
    await expectError('cancel_job', { job_id: 'no-such-job' }, /^404 Not Found/);
    const payload = analysisFor('f', 'x', 'line', ruleId);
    await expectError('submit_analysis', { hash: '0'.repeat(64), analysis: payload }, /^404 Not Found: Resource not found/);
    // Arguments that do not match the schema are refused by the SDK before the service runs.
    await expectError('submit_analysis', { hash: '0'.repeat(64), analysis: { summary: 'x', findings: [] } }, /Input validation error/);
  });
});
