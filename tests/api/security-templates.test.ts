import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, type TestServer } from '../helpers/test-server';
import { bootstrap, BOOTSTRAP_KEY, type Client, registerUser, startAuthServer } from '../helpers/identity';

/**
 * Issue 14, template fairness: one org flooding the template sandbox with slow previews must not
 * stall another org's report (before: one worker, one FIFO queue, no cap: org A's report waited
 * behind every one of org B's renders). Now: a worker pool, one running render per org, a bounded
 * per-org queue whose overflow answers 429 with Retry-After.
 */
let server: TestServer;
let orgA: Client;
let orgB: Client;
let orgBId: string;
const PLAN = 'tfplan-json/terraform-showjson-basic-delete.json';
// 5^14 loop iterations: LiquidJS stops it at its 3 s render limit (422).
const SLOW = `${Array.from({ length: 14 }, (_, i) => `{% for s${i} in severities %}`).join('')}x${'{% endfor %}'.repeat(14)}`;

beforeAll(async () => {
  server = await startAuthServer({
    overrides: { templates: { pool_size: 2, max_concurrent_per_org: 1, max_queued_per_org: 2, max_queued: 64 } },
  });
  orgA = bootstrap(server); // the default org
  const flooder = await registerUser(server, 'flooder@example.com', { orgName: 'Flooder' });
  orgB = flooder.client;
  orgBId = flooder.orgId as string;
  for (const [headers, ns] of [
    [{ 'X-API-Key': BOOTSTRAP_KEY }, 'ns-a'],
    [{ cookie: orgB.cookie as string }, 'ns-b'],
  ] as const) {
    const ingest = await server.api(`/terraform/${ns}/ingest`, { method: 'POST', body: new Uint8Array(corpusFile(PLAN)), headers });
    expect(ingest.status).toBe(201);
  }
  const created = await orgA.post('/orgs/default/report-templates', {
    name: 'Team A',
    format: 'markdown',
    source: '# {{ namespace }}: {{ findings | size }} findings',
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe('template sandbox fairness between orgs', () => {
  it("org B's flood of slow previews neither delays org A's report nor queues without bound", async () => {
    const settled: string[] = [];
    let twoRefused: () => void = () => {};
    const refusedTwice = new Promise<void>((resolve) => {
      twoRefused = resolve;
    });
    const previewPath = `/orgs/${orgBId}/report-templates/preview`;
    const flood = Array.from({ length: 5 }, (_, i) =>
      orgB.post(previewPath, { source: SLOW, format: 'markdown', namespace: 'ns-b' }).then((res) => {
        settled.push(`b${i}:${res.status}`);
        if (settled.filter((s) => s.endsWith(':429')).length === 2 || settled.length === 5) twoRefused();
        return res;
      }),
    );

    // One of B's renders runs, two wait in B's queue; the other two are refused at once.
    await refusedTwice;
    expect(settled.filter((s) => s.endsWith(':429'))).toHaveLength(2);

    const report = await orgA.get('/ns-a/report?template_id=team-a&raw=true');
    settled.push(`a:${report.status}`);
    expect(report.status).toBe(200);
    expect(report.text).toContain('# ns-a');
    // A's report came back while B's accepted renders (3 s each, one at a time) were still queued or running.
    const bAccepted = settled.filter((s) => s.startsWith('b') && !s.endsWith(':429'));
    expect(bAccepted.length).toBeLessThan(3);

    const results = await Promise.all(flood);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([422, 422, 422, 429, 429]);
    for (const res of results.filter((r) => r.status === 429)) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.body.detail).toMatch(/retry/i);
    }
  }, 40_000);
});
