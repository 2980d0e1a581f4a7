/**
 * SQLite-only sanity checks that the filter translation stays index-friendly (the same
 * `json_extract` expression as the expression indexes). Not a benchmark: query plans, plus one
 * generous bound that a full scan of 100k documents per lookup could not meet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc } from '../port';
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
