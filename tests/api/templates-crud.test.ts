import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
let clock = new Date('2026-03-10T12:00:00.000Z');
const BASE = '/orgs/default/report-templates';
const NS = 'tpl-ns';
type Tpl = Record<string, any>;

beforeAll(async () => {
  server = await startTestServer({ start: { now: () => clock } });
  await server.api(`/terraform/${NS}/ingest`, { method: 'POST', body: new Uint8Array(corpusFile('tfplan-json/terraform-showjson-basic-delete.json')) });
  // Analyse every unit client-side with one finding each, then suppress one.
  for (;;) {
    const res = await server.api(`/${NS}/resource/next`);
    if (res.status === 208) break;
    const next = (await res.json()) as { hash: string; value: { name: string } };
    await server.api(`/resource/${next.hash}/analysis`, {
      method: 'PUT',
      json: {
        summary: 's',
        findings: [
          {
            title: `Title ${next.value.name}`,
            severity: 'HIGH',
            rule_id: 'TF-GEN-SECRET-PLAINTEXT',
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 'n',
            confidence: 'HIGH',
            evidence: [],
            resource_address: next.value.name,
            tags: [],
          },
        ],
      },
    });
  }
});
afterAll(async () => {
  await server.close();
});

const create = (body: Record<string, unknown>, headers?: Record<string, string>) => server.api(BASE, { method: 'POST', json: body, headers });

describe('report templates', () => {
  it('CRUD with one default per org and format; template_id and format never change', async () => {
    const first = await create({ name: 'Team MD', format: 'markdown', source: 'TEAM {{ namespace | md_cell }}', is_default: true });
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({
      template_id: 'team-md',
      org_id: 'default',
      name: 'Team MD',
      format: 'markdown',
      source: 'TEAM {{ namespace | md_cell }}',
      is_default: true,
      is_builtin_seed: false,
      created_by: expect.any(String),
      created_at: clock.toISOString(),
      updated_at: null,
    });
    expect((await create({ name: 'team md', format: 'markdown', source: 'x' })).status).toBe(409);
    expect((await create({ name: 'Second MD', format: 'markdown', source: 'SECOND {{ namespace | md_cell }}', is_default: true })).status).toBe(201);
    const defaults = (await (await server.api(`${BASE}?format=markdown&is_default=true`)).json()) as { templates: Tpl[] };
    expect(defaults.templates.map((t) => t.template_id)).toEqual(['second-md']);
    const patched = await server.api(`${BASE}/team-md`, { method: 'PATCH', json: { is_default: true, name: 'Team Markdown' } });
    expect(await patched.json()).toMatchObject({ template_id: 'team-md', name: 'Team Markdown', is_default: true, updated_at: clock.toISOString() });
    expect(((await (await server.api(`${BASE}/second-md`)).json()) as Tpl).is_default).toBe(false);
    expect((await server.api(`${BASE}/team-md`, { method: 'PATCH', json: { format: 'html' } })).status).toBe(422);
    expect((await server.api(`${BASE}/team-md`, { method: 'PATCH', json: { template_id: 'x' } })).status).toBe(422);
    expect((await server.api(`${BASE}/team-md`, { method: 'PATCH', json: { source: '{% if %}' } })).status).toBe(422);
    expect((await server.api(`${BASE}/nope`)).status).toBe(404);
    expect((await server.api(`${BASE}/nope`, { method: 'PATCH', json: { name: 'x' } })).status).toBe(404);
  });

  it('reports use template_id, then the org default, then the built-in', async () => {
    const viaDefault = (await (await server.api(`/${NS}/report`)).json()) as { markdown_report: string };
    expect(viaDefault.markdown_report).toBe(`TEAM ${NS}`);
    const viaId = (await (await server.api(`/${NS}/report?template_id=second-md&format=html`)).json()) as { markdown_report: string };
    expect(viaId.markdown_report).toBe(`SECOND ${NS}`);
    expect((await server.api(`/${NS}/report?template_id=unknown`)).status).toBe(404);
    const raw = await server.api(`/${NS}/report?raw=true`);
    expect(raw.headers.get('content-type')).toContain('text/markdown');
    expect(await raw.text()).toBe(`TEAM ${NS}`);
    expect((await server.api(`${BASE}/team-md`, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(`${BASE}/team-md`, { method: 'DELETE' })).status).toBe(404);
    const builtin = (await (await server.api(`/${NS}/report`)).json()) as { markdown_report: string };
    expect(builtin.markdown_report).toContain('TF-GEN-SECRET-PLAINTEXT');
  });

  it('include_suppressed shows hidden findings; acknowledged keep a status badge', async () => {
    const findings = (await (await server.api('/findings')).json()) as { findings: { resource_hash: string; rule_id: string; title: string }[] };
    const [suppressed, acknowledged] = findings.findings;
    await server.api(`/findings/${suppressed.resource_hash}/${suppressed.rule_id}`, { method: 'PATCH', json: { status: 'suppressed' } });
    await server.api(`/findings/${acknowledged.resource_hash}/${acknowledged.rule_id}`, { method: 'PATCH', json: { status: 'acknowledged' } });
    const hidden = (await (await server.api(`/${NS}/report?format=html`)).json()) as { html_report: string };
    expect(hidden.html_report).not.toContain(suppressed.title);
    expect(hidden.html_report).toContain(acknowledged.title);
    expect(hidden.html_report).toContain('Acknowledged');
    const shown = (await (await server.api(`/${NS}/report?format=html&include_suppressed=true`)).json()) as { html_report: string };
    expect(shown.html_report).toContain(suppressed.title);
  });

  it('seed-builtin imports the three built-ins once; preview renders without persisting', async () => {
    expect(await (await server.api(`${BASE}/seed-builtin`, { method: 'POST' })).json()).toEqual({ created: 3 });
    expect(await (await server.api(`${BASE}/seed-builtin`, { method: 'POST' })).json()).toEqual({ created: 0 });
    const seeded = (await (await server.api(BASE)).json()) as { templates: Tpl[] };
    expect(seeded.templates.filter((t) => t.is_builtin_seed).map((t) => [t.template_id, t.format, t.is_default])).toEqual([
      ['built-in-html', 'html', false],
      ['built-in-markdown', 'markdown', false],
      ['built-in-markdown-light', 'markdown_light', false],
    ]);
    const before = seeded.templates.length;
    const preview = await server.api(`${BASE}/preview`, {
      method: 'POST',
      json: { source: '<p>{{ namespace | escape }}</p><script>x</script>', format: 'html', namespace: NS },
    });
    expect(await preview.json()).toEqual({ content: `<p>${NS}</p>`, content_type: 'text/html; charset=utf-8' });
    expect(((await (await server.api(BASE)).json()) as { templates: Tpl[] }).templates).toHaveLength(before);
    expect((await server.api(`${BASE}/preview`, { method: 'POST', json: { source: 'x', format: 'markdown', namespace: 'empty-ns' } })).status).toBe(404);
  });

  it('roles 403, other org 404, bad bodies 422', async () => {
    expect((await server.api(BASE, { headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    const member = await roleHeaders(server, 'member');
    const viewer = await roleHeaders(server, 'viewer');
    expect((await server.api(BASE, { headers: member })).status).toBe(200);
    expect((await server.api(`${BASE}/preview`, { method: 'POST', headers: member, json: { source: 'x', format: 'markdown', namespace: NS } })).status).toBe(
      200,
    );
    expect((await server.api(BASE, { headers: viewer })).status).toBe(403);
    expect((await create({ name: 'By member', format: 'markdown', source: 'x' }, member)).status).toBe(403);
    expect((await server.api(`${BASE}/seed-builtin`, { method: 'POST', headers: member })).status).toBe(403);
    expect((await server.api('/orgs/default/report-link-ttl', { method: 'PATCH', headers: member, json: { ttl_hours: 2 } })).status).toBe(403);
    const other = await otherOrg(server);
    expect((await server.api(`${BASE}/second-md`, { headers: other.headers })).status).toBe(404);
    expect((await server.api(`/orgs/${other.orgId}/report-templates/second-md`, { headers: other.headers })).status).toBe(404);
    expect((await server.api(`/${NS}/report`, { headers: other.headers })).status).toBe(404);
    for (const body of [
      {},
      { name: 'x', format: 'pdf', source: 'x' },
      { name: '', format: 'markdown', source: 'x' },
      { name: 'x', format: 'markdown', source: '' },
      { name: 'x', format: 'markdown', source: 'x', is_default: 'yes' },
    ]) {
      expect((await create(body)).status).toBe(422);
    }
    expect((await server.api(`${BASE}?is_default=maybe`)).status).toBe(400); // unknown filter value
  });
});

describe('public report links', () => {
  it('markdown_light mints an opaque link; only its SHA-256 is stored; public, CSP, identical 404s', async () => {
    const res = (await (await server.api(`/${NS}/report?format=markdown_light`)).json()) as { markdown_report: string };
    const url = /\(<([^>]*\/api\/v1\/reports\/([A-Za-z0-9_-]+))>\)/.exec(res.markdown_report);
    expect(url).not.toBeNull();
    const token = url![2];
    expect(token).toHaveLength(43);
    const rows = await server.services.engine.stores.store.collection('report_links').find({});
    expect(JSON.stringify(rows)).not.toContain(token);
    // Other formats mint nothing.
    await server.api(`/${NS}/report?format=html`);
    expect(await server.services.engine.stores.store.collection('report_links').count({})).toBe(rows.length);

    const page = await fetch(`${server.url}/api/v1/reports/${token}`, { headers: { 'X-API-Key': 'not-a-key' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('TF-GEN-SECRET-PLAINTEXT');

    const unknown = await fetch(`${server.url}/api/v1/reports/${'A'.repeat(43)}`);
    const malformed = await fetch(`${server.url}/api/v1/reports/nope`);
    clock = new Date(clock.getTime() + 24 * 3_600_000); // default TTL 24 h: now expired
    const expired = await fetch(`${server.url}/api/v1/reports/${token}`);
    const bodies = await Promise.all([unknown, malformed, expired].map(async (r) => [r.status, await r.text()]));
    expect(bodies[0][0]).toBe(404);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('PATCH report-link-ttl affects links minted afterwards', async () => {
    const old = /reports\/([A-Za-z0-9_-]{43})/.exec(
      ((await (await server.api(`/${NS}/report?format=markdown_light`)).json()) as { markdown_report: string }).markdown_report,
    )![1];
    const patched = await server.api('/orgs/default/report-link-ttl', { method: 'PATCH', json: { ttl_hours: 1 } });
    expect(await patched.json()).toEqual({ report_link_ttl_hours: 1 });
    const fresh = /reports\/([A-Za-z0-9_-]{43})/.exec(
      ((await (await server.api(`/${NS}/report?format=markdown_light`)).json()) as { markdown_report: string }).markdown_report,
    )![1];
    clock = new Date(clock.getTime() + 2 * 3_600_000);
    expect((await fetch(`${server.url}/api/v1/reports/${fresh}`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/reports/${old}`)).status).toBe(200);
    for (const ttl of [0, 721, 1.5, '2'])
      expect((await server.api('/orgs/default/report-link-ttl', { method: 'PATCH', json: { ttl_hours: ttl } })).status).toBe(422);
    expect((await server.api('/orgs/other/report-link-ttl', { method: 'PATCH', json: { ttl_hours: 2 } })).status).toBe(404);
  });
});
