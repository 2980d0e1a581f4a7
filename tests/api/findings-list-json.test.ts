import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisUnit } from '../../engine/src/core/unit';
import { listFindings } from '../../engine/src/findings/finding-service';
import { FINDING_STATUSES, type FindingObservation } from '../../engine/src/findings/finding-store';
import { DEFAULT_ORG_ID } from '../../engine/src/orgs/org-store';
import { startTestServer, type TestServer } from '../helpers/test-server';

/**
 * GET /findings is built from the records' stored JSON text (issue 18) instead of parsing and
 * re-serialising each record. Over an org holding every status and severity, records in the
 * stored layout and in older layouts, and titles and notes full of characters JSON escapes,
 * every filter and page the route offers must answer the very bytes the parse → present →
 * res.json path answered (listFindings, which that path still serves to MCP).
 */
let server: TestServer;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
const TEXTS = ['plain', 'quote " backslash \\ newline \n tab \t \u0001', '\u2028 é 😀 \ud800', ',"updated_at":null} ,"confidence":"LOW",'];

const unit = (hash: string): AnalysisUnit => ({
  hash,
  type: 'aws_s3_bucket',
  name: `aws_s3_bucket.${hash}`,
  action: 'create',
  body: `resource "${hash}"`,
  metadata: {},
});

beforeAll(async () => {
  server = await startTestServer();
  const { stores } = server.services.engine;
  const hashes = Array.from({ length: 24 }, (_, i) => `${i.toString(16).padStart(4, '0')}${'ab'.repeat(30)}`);
  await stores.resources.addUnits(DEFAULT_ORG_ID, 'ns-a', hashes.slice(0, 10).map(unit), '2026-01-01T00:00:00.000Z');
  await stores.resources.addUnits(DEFAULT_ORG_ID, 'ns-b', hashes.slice(8, 24).map(unit), '2026-01-01T00:00:00.000Z');
  let n = 0;
  for (const [i, hash] of hashes.entries()) {
    for (let r = 0; r < 3; r += 1) {
      n += 1;
      const o: FindingObservation = {
        resource_hash: hash,
        rule_id: `TF-RULE-${r}`,
        resource_address: `aws_s3_bucket.${hash}`,
        severity: SEVERITIES[n % 5],
        title: TEXTS[n % TEXTS.length],
        confidence: n % 4 ? 'HIGH' : 'LOW',
        initialStatus: n % 4 ? 'open' : 'needs_review',
      };
      // Ties on last_seen are the norm (one analysis, one `now`): the key decides the order then.
      await stores.findings.observe(DEFAULT_ORG_ID, o, `2026-01-0${1 + (i % 3)}T00:00:00.000Z`);
      if (n % 2)
        await stores.findings.update(DEFAULT_ORG_ID, hash, o.rule_id, {
          status: FINDING_STATUSES[n % 5],
          note: n % 3 ? TEXTS[(n + 1) % TEXTS.length] : null,
          updated_by: `key:${n}`,
          updated_at: '2026-01-05T00:00:00.000Z',
        });
    }
  }
  await stores.findings.observe(
    DEFAULT_ORG_ID,
    { resource_hash: hashes[0], rule_id: 'TF-RULE-0', resource_address: 'x', severity: 'LOW', title: 'x', confidence: 'HIGH', initialStatus: 'open' },
    '2026-01-09T00:00:00.000Z',
  );
  // Records in the layout observe wrote before issue 18, and one with an internal field appended.
  const raw = stores.store.collection('findings');
  for (const [i, hash] of ['old-1', 'old-2'].entries()) {
    await raw.updateOne(
      { org_id: DEFAULT_ORG_ID, resource_hash: hash, rule_id: 'TF-RULE-0' },
      {
        $setOnInsert: {
          resource_address: `aws_s3_bucket.${hash}`,
          severity: SEVERITIES[i],
          title: TEXTS[1],
          confidence: 'HIGH',
          status: 'open',
          first_seen: '2026-01-02T00:00:00.000Z',
          note: null,
          updated_by: null,
          updated_at: null,
        },
        $set: { last_seen: '2026-01-02T00:00:00.000Z' },
        $inc: { occurrence_count: 1 },
      },
      { upsert: true },
    );
  }
  await raw.updateOne({ org_id: DEFAULT_ORG_ID, resource_hash: hashes[5], rule_id: 'TF-RULE-1' }, { $set: { internal_marker: 'never returned' } });
});
afterAll(() => server.close());

describe('GET /findings from stored JSON', () => {
  const queries = [
    '',
    'limit=1000',
    'limit=1',
    'limit=7&offset=5',
    'offset=60',
    'offset=5000',
    ...FINDING_STATUSES.map((s) => `status=${s}`),
    ...SEVERITIES.map((s) => `severity=${s}&limit=1000`),
    'rule_id=TF-RULE-1',
    'rule_id=TF-RULE-2&limit=3&offset=2',
    'rule_id=nope',
    'namespace=ns-a',
    'namespace=ns-b&status=open',
    'namespace=ns-b&severity=HIGH&rule_id=TF-RULE-0',
    'namespace=unknown',
    'status=open&severity=MEDIUM',
    'status=needs_review&rule_id=TF-RULE-0&limit=2',
  ];

  it.each(queries)('?%s answers the bytes the parse-and-present path answered', async (query) => {
    const params = new URLSearchParams(query);
    const filter = Object.fromEntries([...params].filter(([k]) => !['limit', 'offset'].includes(k)));
    const page = { limit: Number(params.get('limit') ?? 100), offset: Number(params.get('offset') ?? 0) };
    const expected = JSON.stringify(await listFindings(server.services.engine, DEFAULT_ORG_ID, filter, page));
    const res = await server.api(`/findings?${query}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
    const text = await res.text();
    expect(text).toBe(expected);
    expect(text).not.toContain('internal_marker');
    expect(text).not.toContain('"confidence"');
  });

  it('covers what it claims: every status and severity, both layouts, escapes', async () => {
    const { findings } = (await (await server.api('/findings?limit=1000')).json()) as { findings: Record<string, unknown>[] };
    expect(findings).toHaveLength(74);
    expect(new Set(findings.map((f) => f.status))).toEqual(new Set(FINDING_STATUSES));
    expect(new Set(findings.map((f) => f.severity))).toEqual(new Set(SEVERITIES));
    expect(findings.filter((f) => String(f.resource_hash).startsWith('old-'))).toHaveLength(2);
    expect(findings.some((f) => f.title === TEXTS[1] && f.note === TEXTS[2])).toBe(true);
    expect(findings.some((f) => f.title === TEXTS[3])).toBe(true);
  });

  it("still refuses bad filters with the spec's statuses", async () => {
    expect((await server.api('/findings?status=bogus')).status).toBe(400);
    expect((await server.api('/findings?limit=0')).status).toBe(422);
    expect((await server.api('/findings?colour=red')).status).toBe(400);
  });
});
