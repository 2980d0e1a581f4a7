/**
 * The findings API's additions for keyboard triage (docs/decisions.md "Suppression expiry",
 * "Several namespaces", "Findings by namespace"): a suppression with an end reopens its finding
 * once the clock passes it; GET /findings takes several namespaces and can say each finding's
 * namespaces; a finding has its own GET; the namespaces rank by open CRITICAL and HIGH findings.
 * Bad input answers the spec's status with `{detail}`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisUnit } from '../../engine/src/core/unit';
import type { FindingObservation } from '../../engine/src/findings/finding-store';
import { DEFAULT_ORG_ID } from '../../engine/src/orgs/org-store';
import { startTestServer, type TestServer } from '../helpers/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver';

const DAY = 86_400_000;
const DASHBOARD = 'https://planwarden.example.com/';
let clock = new Date('2026-06-01T12:00:00.000Z');
let server: TestServer;
let receiver: WebhookReceiver;

const hash = (i: number) => `${i.toString(16).padStart(4, '0')}${'cd'.repeat(30)}`;
const unit = (i: number): AnalysisUnit => ({
  hash: hash(i),
  type: 'aws_subnet',
  name: `module.vpc.module.subnets.aws_subnet.private[${i}]`,
  action: 'create',
  body: `resource "aws_subnet" "private${i}" {}`,
  metadata: {},
});
/** Resources 0-3 in aws-prod, 2-5 in aws-staging (2 and 3 in both), 6 in gcp-dev. */
const NAMESPACES: Record<string, number[]> = { 'aws-prod': [0, 1, 2, 3], 'aws-staging': [2, 3, 4, 5], 'gcp-dev': [6] };
const SEVERITY = ['CRITICAL', 'HIGH', 'HIGH', 'MEDIUM', 'CRITICAL', 'LOW', 'HIGH'] as const;

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as any };
}
const patch = (i: number, body: unknown) => server.api(`/findings/${hash(i)}/TF-NET-1`, { method: 'PATCH', json: body }).then(json);
const get = (path: string) => server.api(path).then(json);
const statusOf = async (i: number) => (await get(`/findings/${hash(i)}/TF-NET-1`)).body.status as string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({
    start: { now: () => clock },
    // The receiver is on loopback: reachable through the operator's allowlist only.
    overrides: { notifications: { egress: { allowlist: ['127.0.0.1'] } } },
    adjust: (c) => Object.assign(c.server, { dashboard_base_url: DASHBOARD }),
  });
  const { stores } = server.services.engine;
  for (const [ns, ids] of Object.entries(NAMESPACES)) await stores.resources.addUnits(DEFAULT_ORG_ID, ns, ids.map(unit), clock.toISOString());
  for (let i = 0; i < 7; i += 1) {
    const o: FindingObservation = {
      resource_hash: hash(i),
      rule_id: 'TF-NET-1',
      resource_address: unit(i).name,
      severity: SEVERITY[i],
      title: `Subnet ${i} maps public IPs`,
      confidence: 'HIGH',
      initialStatus: 'open',
    };
    await stores.findings.observe(DEFAULT_ORG_ID, o, clock.toISOString());
  }
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe('several namespaces on GET /findings', () => {
  it('lists the findings of any named namespace, once each, and can name their namespaces', async () => {
    const one = await get('/findings?namespace=aws-prod');
    expect(one.body.findings.map((f: any) => f.resource_hash).sort()).toEqual([0, 1, 2, 3].map(hash));
    expect(one.body.findings[0]).not.toHaveProperty('namespaces'); // the spec's record unless asked

    const both = await get('/findings?namespace=aws-prod&namespace=gcp-dev&include_namespaces=true');
    expect(both.status).toBe(200);
    expect(both.body.findings.map((f: any) => f.resource_hash).sort()).toEqual([0, 1, 2, 3, 6].map(hash));
    const shared = both.body.findings.find((f: any) => f.resource_hash === hash(2));
    expect(shared.namespaces).toEqual(['aws-prod', 'aws-staging']);

    const overlapping = await get('/findings?namespace=aws-prod&namespace=aws-staging&limit=1000');
    expect(overlapping.body.findings).toHaveLength(6); // resources 2 and 3 counted once
    expect((await get('/findings?namespace=nothing-here')).body.findings).toEqual([]);
  });

  it('refuses an empty or oversized namespace filter with 422, an unknown flag value with 400, each with a detail', async () => {
    const cases: [string, number][] = [
      ['namespace=', 422],
      [Array.from({ length: 51 }, (_, i) => `namespace=n${i}`).join('&'), 422],
      ['include_namespaces=maybe', 400], // docs/decisions.md "Query parameters": a value outside an enumerated set
    ];
    for (const [q, status] of cases) {
      const res = await get(`/findings?${q}`);
      expect(res.status, q).toBe(status);
      expect(typeof res.body.detail).toBe('string');
    }
  });
});

describe('a finding of its own', () => {
  it('answers the record with its namespaces, and 404 with a detail for an unknown pair', async () => {
    const res = await get(`/findings/${hash(3)}/TF-NET-1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resource_hash: hash(3),
      rule_id: 'TF-NET-1',
      status: 'open',
      namespaces: ['aws-prod', 'aws-staging'],
      suppressed_until: null,
    });
    const missing = await get(`/findings/${hash(3)}/TF-NOPE`);
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/No finding/);
  });
});

describe('suppression with an end', () => {
  it('reopens the finding once the clock passes the end, in the list, the record and the summary', async () => {
    const until = new Date(clock.getTime() + DAY).toISOString();
    const saved = await patch(0, { status: 'suppressed', reason_code: 'accepted_risk', note: 'change window', expires_at: until });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ status: 'suppressed', suppressed_until: until, note: 'change window' });
    expect((await get(`/findings/${hash(0)}/TF-NET-1`)).body.suppressed_until).toBe(until);
    const suppressedBefore = (await get('/findings/summary')).body.by_status.suppressed;

    clock = new Date(clock.getTime() + DAY - 1000); // not yet
    expect(await statusOf(0)).toBe('suppressed');

    clock = new Date(clock.getTime() + 2000);
    const open = await get('/findings?status=open&limit=1000');
    expect(open.body.findings.map((f: any) => f.resource_hash)).toContain(hash(0));
    const record = (await get(`/findings/${hash(0)}/TF-NET-1`)).body;
    expect(record).toMatchObject({ status: 'open', suppressed_until: null, updated_by: null });
    expect((await get('/findings/summary')).body.by_status.suppressed).toBe(suppressedBefore - 1);
  });

  it('leaves a finding triaged again since the suppression as it is', async () => {
    const until = () => new Date(clock.getTime() + DAY).toISOString();
    expect((await patch(1, { status: 'suppressed', expires_at: until() })).status).toBe(200);
    expect((await patch(1, { status: 'acknowledged', reason_code: 'accepted_risk' })).body.suppressed_until).toBeNull();
    expect((await patch(4, { status: 'suppressed', expires_at: until() })).status).toBe(200);
    clock = new Date(clock.getTime() + 1000);
    expect((await patch(4, { status: 'suppressed', note: 'for good' })).body.suppressed_until).toBeNull(); // suppressed with no end now
    clock = new Date(clock.getTime() + 2 * DAY);
    expect(await statusOf(1)).toBe('acknowledged');
    expect(await statusOf(4)).toBe('suppressed');
  });

  it('refuses an end without suppression, in the past, or not a time, with 422 and a detail', async () => {
    const future = new Date(clock.getTime() + DAY).toISOString();
    const cases = [
      { status: 'acknowledged', expires_at: future },
      { status: 'suppressed', expires_at: new Date(clock.getTime() - DAY).toISOString() },
      { status: 'suppressed', expires_at: 'next tuesday' },
      { status: 'suppressed', expires_at: future, extra: 1 },
    ];
    for (const body of cases) {
      const res = await patch(5, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(typeof res.body.detail).toBe('string');
    }
    expect(await statusOf(5)).toBe('open');
    const unknown = await server.api(`/findings/${hash(5)}/TF-NOPE`, { method: 'PATCH', json: { status: 'suppressed', expires_at: future } }).then(json);
    expect(unknown.status).toBe(404);
  });
});

describe('riskiest namespaces', () => {
  it('ranks namespaces by open CRITICAL, then open HIGH findings', async () => {
    // Now open: 0 CRITICAL (reopened), 2 HIGH, 3 MEDIUM, 5 LOW, 6 HIGH; 1 acknowledged, 4 suppressed.
    const res = await get('/findings/namespaces');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      namespaces: [
        { namespace: 'aws-prod', open_critical: 1, open_high: 1 },
        { namespace: 'aws-staging', open_critical: 0, open_high: 1 },
        { namespace: 'gcp-dev', open_critical: 0, open_high: 1 },
      ],
      partial: false,
    });
    expect((await get('/findings/namespaces?limit=1')).body.namespaces).toHaveLength(1);
    const bad = await get('/findings/namespaces?limit=0');
    expect(bad.status).toBe(422);
    expect(typeof bad.body.detail).toBe('string');
  });
});

describe('a finding linked from reports and notifications', () => {
  it("gives a needs_review notification the finding's own dashboard page", async () => {
    const channel = await server.api('/orgs/default/notifications/channels', {
      method: 'POST',
      json: { label: 'triage', kind: 'webhook', target_url: receiver.url, events: ['finding.needs_review'] },
    });
    expect(channel.status).toBe(201);
    expect((await patch(0, { status: 'needs_review' })).status).toBe(200);
    const hook = JSON.parse((await receiver.next()).raw) as { event: string; url: string | null };
    expect(hook.event).toBe('finding.needs_review');
    expect(hook.url).toBe(`https://planwarden.example.com/findings/aws-prod/${hash(0)}/TF-NET-1`);
  });

  it('gives each SARIF result its own dashboard page', async () => {
    const put = await server.api(`/resource/${hash(6)}/analysis`, {
      method: 'PUT',
      json: {
        summary: 'One subnet.',
        findings: [
          {
            title: 'Subnet 6 maps public IPs',
            severity: 'HIGH',
            rule_id: 'TF-NET-1',
            risk: 'map_public_ip_on_launch = true',
            why_it_matters: 'Reachable.',
            suggested_next_step: 'Turn it off.',
            confidence: 'HIGH',
            evidence: [],
            resource_address: unit(6).name,
            tags: [],
          },
        ],
      },
    });
    expect(put.status).toBe(200);
    const sarif = await get('/gcp-dev/report?format=sarif');
    expect(sarif.status).toBe(200);
    const [result] = sarif.body.sarif_report.runs[0].results;
    expect(result.hostedViewerUri).toBe(`https://planwarden.example.com/findings/gcp-dev/${hash(6)}/TF-NET-1`);
  });
});
