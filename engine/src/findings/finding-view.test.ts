/**
 * GET /findings serves each record's stored JSON text (finding-view.ts): the bytes must be
 * exactly those of the parse → presentFinding → stringify round trip, for records in the stored
 * layout (served from the text) and for any other layout (served by the round trip).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store';
import type { Collection, Store } from '../store/port';
import { ensureSchema } from '../stores';
import { FINDING_API_FIELDS, FindingStore, type FindingDoc, type FindingObservation } from './finding-store';
import { findingJson, findingsPageJson, presentFinding } from './finding-view';

const ORG = 'org-view';
const NASTY = [
  'plain title',
  'quote " backslash \\ slash / newline \n tab \t nul-ish \u0001 \u001f',
  'separators \u2028 \u2029, accents é, emoji 😀, lone surrogate \ud800',
  'looks like keys: ,"updated_at":null} ,"confidence":"HIGH","resource_hash":"x"',
];

const observation = (i: number): FindingObservation => ({
  resource_hash: `h${String(i).padStart(3, '0')}`,
  rule_id: `RULE-${i % 3}`,
  resource_address: `aws_s3_bucket.b${i}`,
  severity: (['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const)[i % 5],
  title: NASTY[i % NASTY.length],
  confidence: i % 2 ? 'HIGH' : 'LOW',
  initialStatus: i % 2 ? 'open' : 'needs_review',
});

/** What the route sent before serving the stored text: every record parsed, presented and re-serialised. */
const roundTrip = (stored: string) => JSON.stringify(presentFinding(JSON.parse(stored) as FindingDoc));

describe('finding JSON from the stored text', () => {
  let store: Store;
  let findings: FindingStore;
  let raw: Collection<FindingDoc>;
  beforeEach(async () => {
    store = await openStore({ backend: 'memory' });
    await ensureSchema(store);
    findings = new FindingStore(store);
    raw = store.collection<FindingDoc>('findings');
  });
  afterEach(() => store.close());

  const storedTexts = () => findings.listRawJson(ORG, {}, { limit: 1000, offset: 0 });

  it('presentFinding keys are FINDING_API_FIELDS, in order', () => {
    const doc = { org_id: ORG, confidence: 'HIGH', ...Object.fromEntries(FINDING_API_FIELDS.map((f) => [f, f])) } as unknown as FindingDoc;
    expect(Object.keys(presentFinding(doc))).toEqual([...FINDING_API_FIELDS]);
  });

  it('serves records written by observe and triage straight from their stored text, byte-identical to the round trip', async () => {
    for (let i = 0; i < 12; i += 1) await findings.observe(ORG, observation(i), `2026-01-01T00:00:0${i % 4}.000Z`);
    await findings.observe(ORG, observation(3), '2026-01-02T00:00:00.000Z'); // refreshed: last_seen, occurrence_count
    const statuses = ['open', 'needs_review', 'acknowledged', 'suppressed', 'false_positive'] as const;
    for (let i = 0; i < 10; i += 1) {
      const o = observation(i);
      await findings.update(ORG, o.resource_hash, o.rule_id, {
        status: statuses[i % 5],
        note: i % 3 ? NASTY[(i + 1) % NASTY.length] : null,
        updated_by: `user "${i}"`,
        updated_at: '2026-01-03T00:00:00.000Z',
      });
    }
    const texts = await storedTexts();
    expect(texts).toHaveLength(12);
    for (const text of texts) {
      const served = findingJson(text);
      expect(served).toBe(roundTrip(text));
      expect(text.endsWith(served.slice(1))).toBe(true); // taken from the stored text, not re-serialised
    }
    const page = findingsPageJson(texts);
    expect(page).toBe(JSON.stringify({ findings: texts.map((t) => presentFinding(JSON.parse(t) as FindingDoc)) }));
    expect(findingsPageJson([])).toBe('{"findings":[]}');
  });

  it('takes the round trip for records in another layout, never leaking a field the API does not return', async () => {
    // The layout an older observe wrote (an upsert: filter fields first, last_seen and occurrence_count last).
    const o = observation(1);
    await raw.updateOne(
      { org_id: ORG, resource_hash: 'old', rule_id: o.rule_id },
      {
        $setOnInsert: {
          resource_address: o.resource_address,
          severity: o.severity,
          title: o.title,
          confidence: o.confidence,
          status: 'open',
          first_seen: 'x',
          note: null,
          updated_by: null,
          updated_at: null,
        },
        $set: { last_seen: '2026-01-01T00:00:00.000Z' },
        $inc: { occurrence_count: 1 },
      },
      { upsert: true },
    );
    // A record in the stored layout that a later write appended an internal field to.
    await findings.observe(ORG, observation(2), '2026-01-01T00:00:00.000Z');
    await raw.updateOne({ org_id: ORG, resource_hash: observation(2).resource_hash }, { $set: { internal_marker: 'secret' } });
    // A record whose last API field was unset and set again (moved to the end: still the stored layout).
    await findings.observe(ORG, observation(4), '2026-01-01T00:00:00.000Z');
    await raw.updateOne({ org_id: ORG, resource_hash: observation(4).resource_hash }, { $unset: { note: true } });

    const texts = await storedTexts();
    expect(texts).toHaveLength(3);
    for (const text of texts) {
      const served = findingJson(text);
      expect(served).toBe(roundTrip(text));
      expect(served).not.toContain('internal_marker');
      expect(served).not.toContain('"confidence"');
      expect(served).not.toContain('"org_id"');
    }
    const [old] = texts.filter((t) => t.includes('"resource_hash":"old"'));
    expect(old.endsWith(findingJson(old).slice(1))).toBe(false);
  });

  it('observe creates a pair once when two observations race', async () => {
    const o = observation(5);
    const results = await Promise.all([findings.observe(ORG, o, '2026-01-01T00:00:00.000Z'), findings.observe(ORG, o, '2026-01-01T00:00:00.000Z')]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    const record = await findings.get(ORG, o.resource_hash, o.rule_id);
    expect(record?.occurrence_count).toBe(2);
    expect(await findings.count(ORG)).toBe(1);
  });
});
