import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store';
import type { Store } from '../store/port';
import { ResourceStore, RESOURCE_INDEXES } from './resource-store';
import { bucketUnit } from '../../../tests/helpers/bucket-units';

const unit = bucketUnit;

let store: Store;
let resources: ResourceStore;
beforeEach(async () => {
  store = await openStore({ backend: 'memory' });
  for (const [name, indexes] of Object.entries(RESOURCE_INDEXES)) await store.ensureIndexes(name, indexes);
  resources = new ResourceStore(store);
});
afterEach(async () => {
  await store.close();
});

const payload = {
  summary: 's',
  findings: [
    {
      title: 't',
      severity: 'LOW' as const,
      rule_id: 'R',
      risk: 'r',
      why_it_matters: 'w',
      suggested_next_step: 'n',
      confidence: 'HIGH' as const,
      evidence: [],
      resource_address: 'a',
      tags: [],
    },
  ],
};

describe('ResourceStore.addUnits', () => {
  it('records a large batch once, in ingest order, across batch boundaries', async () => {
    const units = Array.from({ length: 1201 }, (_, i) => unit(i));
    await resources.addUnits('org1', 'ns', [...units, units[0]], '2026-11-01T00:00:00.000Z');
    const members = await resources.listMembers('org1', 'ns');
    expect(members.map((m) => m.hash)).toEqual(units.map((u) => u.hash));
    expect(await store.collection('resources').count({ org_id: 'org1' })).toBe(1201);
  });

  it('survives two concurrent ingests of the same content (the loser falls back to upserts)', async () => {
    const units = Array.from({ length: 50 }, (_, i) => unit(i));
    await Promise.all([
      resources.addUnits('org1', 'a', units, '2026-11-01T00:00:00.000Z'),
      resources.addUnits('org1', 'b', units, '2026-11-01T00:00:00.000Z'),
      resources.addUnits('org1', 'a', units, '2026-11-01T00:00:01.000Z'),
    ]);
    expect(await store.collection('resources').count({ org_id: 'org1' })).toBe(50);
    expect(await resources.listMembers('org1', 'a')).toHaveLength(50);
    expect(await resources.listMembers('org1', 'b')).toHaveLength(50);
  });

  it('marks a unit analysed in a new namespace when its resource already has an analysis', async () => {
    await resources.addUnits('org1', 'a', [unit(1), unit(2)], '2026-11-01T00:00:00.000Z');
    await resources.saveAnalysis('org1', unit(1).hash, payload, { rulesetDigest: 'd', source: 'client', now: '2026-11-01T00:00:01.000Z' });
    await resources.addUnits('org1', 'b', [unit(1), unit(2)], '2026-11-01T00:00:02.000Z');
    expect((await resources.nextUnanalysed('org1', 'b'))?.hash).toBe(unit(2).hash);
    // another org sees none of it
    expect(await resources.get('org2', unit(1).hash)).toBeNull();
    expect(await resources.nextUnanalysed('org2', 'b')).toBeNull();
  });
});
