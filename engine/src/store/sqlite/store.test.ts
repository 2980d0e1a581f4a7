/**
 * SQLite-only sanity checks that the filter translation stays index-friendly (the hot columns
 * of the indexed paths, columns.ts, which the indexes are built on). Not a benchmark: query plans, plus one
 * generous bound that a full scan of 100k documents per lookup could not meet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc } from '../port';
import type { SqliteCollection } from './collection';
import { SqliteStore } from './store';

type Finding = Doc & { org_id: string; rule_id: string; created_at: string; severity: number; labels?: string[] };
const N = 100_000;

describe('sqlite adapter: indexed queries at 100k documents', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = new SqliteStore(':memory:', 'memory');
    await store.ensureIndexes('findings', [
      { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
      { name: 'rule', keys: { rule_id: 1 }, unique: true },
      { name: 'severity', keys: { severity: 1 } },
    ]);
    const docs: Finding[] = Array.from({ length: N }, (_, i) => ({
      org_id: `org${i % 100}`,
      rule_id: `rule-${i}`,
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      severity: i % 5,
    }));
    await store.collection<Finding>('findings').insertMany(docs);
  });
  afterAll(() => store.close());

  it('uses the expression indexes for equality, $in, ranges and sorts', () => {
    const plan = (...args: Parameters<SqliteStore['explainFind']>) => store.explainFind(...args).join(' | ');
    expect(plan('findings', { rule_id: 'rule-5' })).toContain('USING INDEX findings__rule');
    expect(plan('findings', { rule_id: { $in: ['rule-1', 'rule-2'] } })).toContain('USING INDEX findings__rule');
    expect(plan('findings', { org_id: 'org7' }, { sort: { created_at: -1 }, limit: 20 })).toMatch(/USING INDEX findings__org_created(?!.*TEMP B-TREE)/);
    expect(plan('findings', { org_id: 'org7', created_at: { $gte: '2026-01-01T10:00:00.000Z' } })).toContain('USING INDEX findings__org_created');
    expect(plan('findings', { _id: 'x' })).toMatch(/USING INDEX sqlite_autoindex_findings_1|USING PRIMARY KEY/);
  });

  it('a filter naming its documents by _id is answered by the primary key, whatever else it names', async () => {
    const findings = store.collection<Finding>('findings');
    const page = await findings.find({ org_id: 'org7' }, { limit: 300 });
    const ids = page.map((d) => d._id as string);
    for (const filter of [
      { org_id: 'org7', _id: { $in: ids } }, // a long list: bound as one JSON array
      { org_id: 'org7', _id: { $in: ids.slice(0, 3) } },
      { org_id: 'org7', created_at: { $gte: '2026-01-01T00:00:00.000Z' }, _id: ids[0] },
    ]) {
      for (const plan of [store.explainFind('findings', filter), store.explainCount('findings', filter)]) {
        expect(plan.join(' | ')).toMatch(/^SEARCH findings USING (COVERING )?INDEX sqlite_autoindex_findings_1 \(_id=\?\)/);
      }
    }
    // The other terms still filter: another org's ids match nothing.
    expect(await findings.count({ org_id: 'org8', _id: { $in: ids } })).toBe(0);
    expect(await findings.count({ org_id: 'org7', _id: { $in: ids } })).toBe(300);
  });

  it('type-strict filters are answered from the index alone, without reading documents', () => {
    // A COVERING INDEX plan for count proves the WHERE reads no document (no json_type(doc)).
    const plan = (filter: Record<string, unknown>) => store.explainCount('findings', filter).join(' | ');
    expect(plan({ org_id: 'org7' })).toContain('USING COVERING INDEX findings__org_created');
    expect(plan({ rule_id: { $in: ['rule-1', 'rule-2'] } })).toContain('USING COVERING INDEX findings__rule');
    expect(plan({ severity: 3 })).toContain('USING COVERING INDEX findings__severity');
    expect(plan({ severity: { $in: [2, 3] } })).toContain('USING COVERING INDEX findings__severity');
    expect(plan({ severity: { $gt: 2 } })).toContain('USING COVERING INDEX findings__severity');
    expect(plan({ org_id: 'org7', created_at: { $lt: '2026-01-01T10:00:00.000Z' } })).toContain('USING COVERING INDEX findings__org_created');
    // 1 could be a stored `true`: that comparison has to read the type from the document.
    expect(plan({ severity: 1 })).not.toContain('COVERING');
  });

  it('pages at any offset share one statement, with no type read on a string equality', async () => {
    const findings = store.collection<Finding>('findings');
    const opts = { sort: { created_at: -1 as const }, limit: 20 };
    const first = await findings.find({ org_id: 'org7' }, { ...opts, skip: 0 });
    const last = await findings.find({ org_id: 'org7' }, { ...opts, skip: N / 100 - 20 });
    expect(first[0]?.created_at > last[19]?.created_at).toBe(true);
    expect(await findings.find({ org_id: 'org7' }, { ...opts, skip: N / 100 })).toEqual([]);
    // Same statement shape for every offset: the limit is inlined, the offset bound.
    const sqlOf = (skip: number) => (findings as SqliteCollection<Finding>).findSql({ org_id: 'o' }, { ...opts, skip }).sql;
    expect(sqlOf(0)).toBe(sqlOf(980));
    expect(sqlOf(0)).not.toContain('json_type');
  });

  it('answers indexed lookups without scanning', async () => {
    const findings = store.collection<Finding>('findings');
    const started = performance.now();
    for (let i = 0; i < 200; i++) {
      const [hit] = await findings.find({ rule_id: `rule-${i * 499}` });
      expect(hit?.severity).toBe((i * 499) % 5);
    }
    const page = await findings.find({ org_id: 'org7' }, { sort: { created_at: -1 }, limit: 20 });
    expect(page).toHaveLength(20);
    expect(await findings.count({ org_id: 'org7' })).toBe(N / 100);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
