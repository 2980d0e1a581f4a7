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
});
