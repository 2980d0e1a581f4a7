import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINDINGS_SLICE, listFindings } from '../../engine/src/findings/finding-service';
import type { FindingObservation } from '../../engine/src/findings/finding-store';
import { DEFAULT_ORG_ID } from '../../engine/src/orgs/org-store';
import { startTestServer, type TestServer } from '../helpers/test-server';

/**
 * A GET /findings page larger than FINDINGS_SLICE records is rendered and sent a slice at a time
 * (docs/decisions.md "Findings pages in slices"): the client must still get the very bytes of
 * the page read at once (listFindings serialised), for every filter, offset and page size around
 * the slice boundaries, and the route's refusals stay what they were.
 */
let server: TestServer;
const TOTAL = FINDINGS_SLICE * 2 + 37;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;

beforeAll(async () => {
  server = await startTestServer();
  const { findings, resources } = server.services.engine.stores;
  const observations = (from: number, to: number): FindingObservation[] =>
    Array.from({ length: to - from }, (_, j) => {
      const i = from + j;
      return {
        resource_hash: `${(i >> 2).toString(16).padStart(6, '0')}${'cd'.repeat(29)}`,
        rule_id: `TF-RULE-${i % 4}`,
        resource_address: `aws_s3_bucket.b${i >> 2}`,
        severity: SEVERITIES[i % 5],
        title: `quote " é ${i}`,
        confidence: 'HIGH',
        initialStatus: i % 3 ? 'open' : 'needs_review',
      };
    });
  // A namespace holding most resources.
  const hashes = Array.from({ length: Math.ceil(TOTAL / 4) }, (_, r) => `${r.toString(16).padStart(6, '0')}${'cd'.repeat(29)}`);
  const unit = (hash: string) => ({ hash, type: 'aws_s3_bucket', name: `aws_s3_bucket.${hash}`, action: 'create' as const, body: '{}', metadata: {} });
  await resources.addUnits(DEFAULT_ORG_ID, 'wide', hashes.slice(2).map(unit), '2026-01-01T00:00:00.000Z');
  // Three analyses: long runs of records tied on last_seen, across the slice boundaries.
  for (const [day, from, to] of [
    [1, 0, 200],
    [2, 200, 450],
    [3, 450, TOTAL],
  ] as const) {
    await findings.observeMany(DEFAULT_ORG_ID, observations(from, to), `2026-02-0${day}T00:00:00.000Z`);
  }
});
afterAll(() => server.close());

describe('GET /findings in slices', () => {
  const queries = [
    'limit=1000',
    `limit=${FINDINGS_SLICE + 1}`,
    `limit=${FINDINGS_SLICE * 2}&offset=3`,
    `limit=${FINDINGS_SLICE + 10}&offset=${TOTAL - FINDINGS_SLICE - 10}`,
    `limit=1000&offset=${TOTAL}`,
    'limit=1000&status=open',
    'limit=500&severity=HIGH',
    'limit=1000&rule_id=TF-RULE-2&offset=1',
    'limit=1000&namespace=wide',
    `limit=${FINDINGS_SLICE * 2}&namespace=wide&offset=5`,
    'limit=1000&namespace=wide&status=open',
  ];

  it.each(queries)('?%s answers the bytes of the page read at once', async (query) => {
    const params = new URLSearchParams(query);
    const filter = Object.fromEntries([...params].filter(([k]) => !['limit', 'offset'].includes(k)));
    const page = { limit: Number(params.get('limit')), offset: Number(params.get('offset') ?? 0) };
    const expected = JSON.stringify(await listFindings(server.services.engine, DEFAULT_ORG_ID, filter, page));
    const res = await server.api(`/findings?${query}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(expected);
  });

  it('serves a large page whole: every record once, newest first', async () => {
    const res = await server.api('/findings?limit=1000');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const { findings } = (await res.json()) as { findings: { resource_hash: string; rule_id: string; last_seen: string }[] };
    expect(findings).toHaveLength(TOTAL);
    expect(new Set(findings.map((f) => `${f.resource_hash}/${f.rule_id}`)).size).toBe(TOTAL);
    expect(findings[0].last_seen > findings[TOTAL - 1].last_seen).toBe(true);
  });

  it('answers a page of at most one slice with its length, as before', async () => {
    const res = await server.api(`/findings?limit=${FINDINGS_SLICE}`);
    const text = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect((JSON.parse(text) as { findings: unknown[] }).findings).toHaveLength(FINDINGS_SLICE);
  });

  it("refuses bad filters on a large page with the spec's statuses", async () => {
    expect((await server.api('/findings?limit=1000&status=bogus')).status).toBe(400);
    expect((await server.api('/findings?limit=100000')).status).toBe(422);
    const small = await server.api('/findings?limit=10&detection=new');
    expect(small.status).toBeGreaterThanOrEqual(400);
    expect((await server.api('/findings?limit=1000&detection=new')).status).toBe(small.status);
  });
});
