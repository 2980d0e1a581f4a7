import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

/**
 * Template sandbox at the HTTP level (the engine-level limits are tested in
 * engine/src/report/sandbox.test.ts): hostile sources fail with 422 within the limits, and the
 * server keeps answering other requests while one renders.
 */
let server: TestServer;
const BASE = '/orgs/default/report-templates';
beforeAll(async () => {
  server = await startTestServer();
  await server.api('/terraform/sandbox-ns/ingest', { method: 'POST', body: new Uint8Array(corpusFile('tfplan-json/terraform-showjson-basic-delete.json')) });
  // Warm the sandbox worker so timings below measure rendering, not thread start-up.
  expect((await server.api(`${BASE}/preview`, { method: 'POST', json: { source: 'ok', format: 'markdown', namespace: 'sandbox-ns' } })).status).toBe(200);
});
afterAll(async () => {
  await server.close();
});

const nested = (depth: number) => `${Array.from({ length: depth }, (_, i) => `{% for s${i} in severities %}`).join('')}x${'{% endfor %}'.repeat(depth)}`;

const HOSTILE: Record<string, string> = {
  'prototype access': '{{ namespace.constructor.name }}',
  'prototype via __proto__': '{{ findings.__proto__ }}',
  'infinite loop': nested(14),
  'huge range loop': '{% for i in (1..100000000) %}{% for j in (1..100000000) %}{{ i }}{% endfor %}{% endfor %}',
  'exponential output (append)': '{% assign s = "xxxxxxxxxx" %}{% for i in (1..60) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
  'exponential output (capture)': '{% assign s = "xxxxxxxxxx" %}{% for i in (1..60) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s }}',
  'process access': '{{ process.env.HOME }}',
  'global access': '{{ global.process.mainModule }}',
  'file include': '{% include "/etc/passwd" %}',
  'unknown filter': '{{ namespace | eval }}',
};

describe('hostile templates over HTTP', () => {
  for (const [name, source] of Object.entries(HOSTILE)) {
    it(`${name}: create and preview answer 422 quickly`, async () => {
      const started = Date.now();
      const created = await server.api(BASE, { method: 'POST', json: { name: `hostile ${name}`, format: 'markdown', source } });
      expect(created.status).toBe(422);
      expect(((await created.json()) as { detail: string }).detail).toMatch(/^template failed to render/);
      const preview = await server.api(`${BASE}/preview`, { method: 'POST', json: { source, format: 'html', namespace: 'sandbox-ns' } });
      expect(preview.status).toBe(422);
      expect(Date.now() - started).toBeLessThan(12_000); // two renders, each bounded by the 3 s render limit
      expect((await server.api(`${BASE}?format=markdown`)).status).toBe(200);
    }, 20_000);
  }

  it('the server answers other requests while a template renders', async () => {
    const order: string[] = [];
    const slow = server.api(`${BASE}/preview`, { method: 'POST', json: { source: nested(14), format: 'markdown', namespace: 'sandbox-ns' } }).then((res) => {
      order.push('template');
      return res;
    });
    const health = await fetch(`${server.url}/health`);
    order.push('health');
    const findings = await server.api('/findings');
    order.push('findings');
    expect(health.status).toBe(200);
    expect(findings.status).toBe(200);
    expect((await slow).status).toBe(422);
    expect(order).toEqual(['health', 'findings', 'template']);
  }, 20_000);

  it('a stored template that breaks at render time makes the report answer 422', async () => {
    // Valid against the sample model used at save time, fails on this namespace (strict variables).
    const source = '{% if namespace == "sandbox-ns" %}{{ missing_variable }}{% endif %}ok';
    expect((await server.api(BASE, { method: 'POST', json: { name: 'Breaks later', format: 'markdown', source } })).status).toBe(201);
    const report = await server.api('/sandbox-ns/report?template_id=breaks-later');
    expect(report.status).toBe(422);
    expect(((await report.json()) as { detail: string }).detail).toContain('missing_variable');
  });
});
