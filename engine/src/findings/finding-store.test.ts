/**
 * The GET /findings query reads a page in index order (sqlite adapter's query plan): the index
 * covers the whole sort, so no temporary B-tree sorts the org's records (ties on last_seen are
 * the norm: one analysis observes all its findings at the same `now`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite/store';
import { ensureSchema } from '../stores';
import { FINDING_LIST_SORT } from './finding-store';

describe('findings list query plan (sqlite)', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = new SqliteStore(':memory:', 'memory');
    await ensureSchema(store);
  });
  afterAll(() => store.close());

  const plan = (filter: Record<string, unknown>) => store.explainFind('findings', filter, { sort: FINDING_LIST_SORT, skip: 0, limit: 100 }).join(' | ');

  it('the unfiltered list and the status filter walk an index in sort order', () => {
    expect(plan({ org_id: 'o' })).toContain('USING INDEX findings__org_last_seen');
    expect(plan({ org_id: 'o', status: 'open' })).toContain('USING INDEX findings__org_status_last_seen');
    for (const filter of [{ org_id: 'o' }, { org_id: 'o', status: 'open' }, { org_id: 'o', severity: 'HIGH' }]) {
      expect(plan(filter)).not.toContain('TEMP B-TREE');
    }
  });

  it('every filter GET /findings offers is answered from an index on the hot columns, in sort order', () => {
    const hashes = (n: number) => Array.from({ length: n }, (_, i) => `h${i}`);
    const cases: [Record<string, unknown>, string][] = [
      [{ org_id: 'o', severity: 'HIGH' }, 'findings__org_severity_last_seen (@org_id=? AND @severity=?)'],
      [{ org_id: 'o', rule_id: 'R' }, 'findings__org_rule_last_seen (@org_id=? AND @rule_id=?)'],
      [{ org_id: 'o', status: 'open', severity: 'HIGH', rule_id: 'R' }, 'USING INDEX findings__org_'],
      // The namespace filter: the member hashes checked against the index's resource_hash column.
      [{ org_id: 'o', resource_hash: { $in: hashes(3) } }, 'findings__org_last_seen (@org_id=?)'],
      [{ org_id: 'o', resource_hash: { $in: hashes(50_000) } }, 'findings__org_last_seen (@org_id=?)'],
    ];
    for (const [filter, index] of cases) {
      const text = plan(filter);
      expect(text).toContain(index);
      expect(text).not.toContain('TEMP B-TREE');
      expect(text).not.toMatch(/SCAN findings\b/);
    }
  });
});
