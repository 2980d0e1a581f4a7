/**
 * An ingest is one transaction with its namespace record (docs/decisions.md "Runs compared"): the
 * storage port has no multi-document transaction, so the namespace record naming the run is
 * written last. A store write failing part-way (a crash) leaves no namespace record without its
 * resources, and an existing namespace keeps its previous run as its current state.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store';
import type { Collection, Doc, Store } from '../store/port';
import { ResourceStore, RESOURCE_INDEXES, RUNS_KEPT } from './resource-store';
import { bucketUnit } from '../../../tests/helpers/bucket-units';

const unit = bucketUnit;
const units = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => unit(from + i));
/** Ten units a batch, so a 30-unit ingest writes its members in three bulk inserts. */
const BATCHES = { first: 10, min: 10, max: 10 };

let store: Store;
/** Member bulk inserts left before the next one fails (Infinity: never). */
let insertsBeforeCrash = Number.POSITIVE_INFINITY;

/** The store, with `namespace_resources.insertMany` failing once its budget is spent (the process dying mid-ingest). */
function crashingStore(inner: Store): Store {
  const collection = <T extends Doc>(name: string): Collection<T> => {
    const c = inner.collection<T>(name);
    if (name !== 'namespace_resources') return c;
    const insertMany = c.insertMany.bind(c);
    c.insertMany = async (docs: readonly T[]) => {
      if (insertsBeforeCrash <= 0) throw new Error('store write failed (crash)');
      insertsBeforeCrash -= 1;
      return insertMany(docs);
    };
    return c;
  };
  return {
    backend: inner.backend,
    collection,
    ensureIndexes: inner.ensureIndexes.bind(inner),
    purgeExpired: inner.purgeExpired.bind(inner),
    close: inner.close.bind(inner),
  };
}

let resources: ResourceStore;
beforeEach(async () => {
  store = await openStore({ backend: 'memory' });
  for (const [name, indexes] of Object.entries(RESOURCE_INDEXES)) await store.ensureIndexes(name, indexes);
  insertsBeforeCrash = Number.POSITIVE_INFINITY;
  resources = new ResourceStore(crashingStore(store));
});
afterEach(async () => {
  await store.close();
});

describe('an ingest and its namespace record', () => {
  it('a crash mid-way leaves no namespace record; the ingest run again records it whole', async () => {
    insertsBeforeCrash = 1;
    await expect(resources.addUnits('org1', 'fresh', units(0, 30), '2026-11-01T00:00:00.000Z', BATCHES)).rejects.toThrow('crash');
    expect(await resources.namespaceExists('org1', 'fresh')).toBe(false);
    expect(await resources.listNamespaces('org1')).toEqual([]);
    expect(await resources.latestRuns('org1', 'fresh')).toEqual({ latest: null, previous: null });

    insertsBeforeCrash = Number.POSITIVE_INFINITY;
    await resources.addUnits('org1', 'fresh', units(0, 30), '2026-11-01T00:01:00.000Z', BATCHES);
    expect((await resources.listNamespaces('org1')).map((n) => n.namespace)).toEqual(['fresh']);
    expect(await resources.currentMembers('org1', 'fresh')).toHaveLength(30);
    expect((await resources.latestRuns('org1', 'fresh')).latest?.hashes).toEqual(units(0, 30).map((u) => u.hash));
  });

  it('a crash mid-way through a second run keeps the first run as the namespace current state', async () => {
    await resources.addUnits('org1', 'ns', units(0, 10), '2026-11-01T00:00:00.000Z', BATCHES);
    const first = (await resources.latestRuns('org1', 'ns')).latest!;
    insertsBeforeCrash = 1;
    await expect(resources.addUnits('org1', 'ns', units(5, 35), '2026-11-01T00:01:00.000Z', BATCHES)).rejects.toThrow('crash');
    const after = await resources.latestRuns('org1', 'ns');
    expect(after.latest?.run_id).toBe(first.run_id);
    expect((await resources.currentMembers('org1', 'ns')).map((m) => m.hash)).toEqual(units(0, 10).map((u) => u.hash));
  });

  it('each ingest is a run naming the one before it; runs beyond the kept number are pruned', async () => {
    for (let i = 0; i < RUNS_KEPT + 3; i += 1) {
      await resources.addUnits('org1', 'ns', [unit(i)], `2026-11-01T00:${String(i).padStart(2, '0')}:00.000Z`);
    }
    const { latest, previous } = await resources.latestRuns('org1', 'ns');
    expect(latest?.hashes).toEqual([unit(RUNS_KEPT + 2).hash]);
    expect(previous?.hashes).toEqual([unit(RUNS_KEPT + 1).hash]);
    expect(latest?.prev_run_id).toBe(previous?.run_id);
    expect(await store.collection('namespace_runs').count({ org_id: 'org1', namespace: 'ns' })).toBe(RUNS_KEPT);
    expect(await resources.listMembers('org1', 'ns')).toHaveLength(RUNS_KEPT + 3);
    expect((await resources.currentMembers('org1', 'ns')).map((m) => m.hash)).toEqual([unit(RUNS_KEPT + 2).hash]);
    // Another org sees none of it.
    expect(await resources.latestRuns('org2', 'ns')).toEqual({ latest: null, previous: null });
  });
});
