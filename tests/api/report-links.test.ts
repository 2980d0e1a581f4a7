/**
 * Public report links: list and revoke (extension of analysis-api.md "Reports and report
 * links", docs/decisions.md). A link minted by a markdown_light report opens logged out; once
 * an admin revokes it, it answers exactly like an unknown token. Members cannot list or revoke;
 * another org's admin gets 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
const NS = 'links-ns';
const LINKS = '/orgs/default/report-links';
type Link = { link_id: string; namespace: string; created_at: string; expires_at: string; created_by: string | null };

beforeAll(async () => {
  server = await startTestServer({ start: { now: () => new Date('2026-03-10T12:00:00.000Z') } });
  const ingest = await server.api(`/terraform/${NS}/ingest`, {
    method: 'POST',
    body: new Uint8Array(corpusFile('tfplan-json/terraform-showjson-basic-delete.json')),
  });
  expect(ingest.status).toBeLessThan(300);
});
afterAll(async () => {
  await server.close();
});

/** Mints a link the way a user does (GET /{namespace}/report?format=markdown_light) and returns its token. */
async function mint(headers?: Record<string, string>): Promise<string> {
  const res = await server.api(`/${NS}/report?format=markdown_light`, { headers });
  expect(res.status).toBe(200);
  return /reports\/([A-Za-z0-9_-]{43})/.exec(((await res.json()) as { markdown_report: string }).markdown_report)![1];
}
const openLoggedOut = async (token: string) => {
  const res = await fetch(`${server.url}/api/v1/reports/${token}`);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
};

describe('public report links: list and revoke', () => {
  it('lists the link without its token, revokes it, and the revoked link answers like an unknown one', async () => {
    const member = await roleHeaders(server, 'member');
    const token = await mint(member);
    expect((await openLoggedOut(token)).status).toBe(200);

    const listed = await server.api(LINKS);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(token);
    const { links } = JSON.parse(text) as { links: Link[] };
    expect(links).toHaveLength(1);
    expect(links[0]).toEqual({
      link_id: expect.stringMatching(/^rl_/),
      namespace: NS,
      created_at: '2026-03-10T12:00:00.000Z',
      expires_at: '2026-03-11T12:00:00.000Z',
      created_by: expect.any(String),
    });

    const revoked = await server.api(`${LINKS}/${links[0].link_id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    const after = await openLoggedOut(token);
    const unknown = await openLoggedOut('A'.repeat(43));
    expect(after.status).toBe(404);
    expect(after).toEqual(unknown);
    expect(((await (await server.api(LINKS)).json()) as { links: Link[] }).links).toEqual([]);
    expect((await server.api(`${LINKS}/${links[0].link_id}`, { method: 'DELETE' })).status).toBe(404);

    const audit = (await (await server.api('/metrics/audit?action=report_link.revoke')).json()) as { events: { target_id: string; before: Link }[] };
    expect(audit.events.map((e) => [e.target_id, e.before.namespace])).toEqual([[links[0].link_id, NS]]);
  });

  it('a member can neither list nor revoke, and the link keeps working', async () => {
    const token = await mint();
    const link = ((await (await server.api(LINKS)).json()) as { links: Link[] }).links[0];
    for (const role of ['member', 'viewer'] as const) {
      const headers = await roleHeaders(server, role);
      expect((await server.api(LINKS, { headers })).status).toBe(403);
      expect((await server.api(`${LINKS}/${link.link_id}`, { method: 'DELETE', headers })).status).toBe(403);
    }
    expect((await openLoggedOut(token)).status).toBe(200);
  });

  it("another org's admin gets 404 for our links, by their path or ours, and the link keeps working", async () => {
    const token = await mint();
    const link = ((await (await server.api(LINKS)).json()) as { links: Link[] }).links[0];
    const other = await otherOrg(server);
    expect((await server.api(`/orgs/${other.orgId}/report-links/${link.link_id}`, { method: 'DELETE', headers: other.headers })).status).toBe(404);
    expect((await server.api(`${LINKS}/${link.link_id}`, { method: 'DELETE', headers: other.headers })).status).toBe(404);
    expect((await server.api(LINKS, { headers: other.headers })).status).toBe(404);
    expect(await (await server.api(`/orgs/${other.orgId}/report-links`, { headers: other.headers })).json()).toEqual({ links: [] });
    expect((await openLoggedOut(token)).status).toBe(200);
  });

  it('appears in the OpenAPI document', async () => {
    const doc = (await (await server.api('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/orgs/{org_id}/report-links');
    expect(Object.keys(doc.paths['/orgs/{org_id}/report-links/{link_id}'] ?? {})).toContain('delete');
  });
});
