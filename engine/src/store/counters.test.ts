import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CounterDocs, type Counts } from './counters';
import { openMemoryStore } from './memory/store';
import type { Store } from './port';

/**
 * The counter protocol against writes of another replica (a second view of the same store, so
 * its writers do not wait for this process's rebuild), placed deterministically inside the
 * rebuild: a counter is stored only when no write could be missed or counted twice.
 */
let store: Store;
let here: CounterDocs;
let replica: CounterDocs;
const now = new Date('2026-06-01T00:00:00.000Z');

beforeEach(() => {
  store = openMemoryStore();
  here = new CounterDocs(store, 'counters');
  replica = new CounterDocs({ backend: store.backend, collection: (name: string) => store.collection(name) } as unknown as Store, 'counters');
});
afterEach(async () => {
  await store.close();
});

const rows = () => store.collection<{ _id?: string; org_id: string }>('rows');
const recount = async (): Promise<Counts> => ({ rows: await rows().count({ org_id: 'o' }) });
/** One row written through `via`, counted +1. */
const addRow = (via: CounterDocs) =>
  via.track(
    'o',
    ['o'],
    async () => {
      await rows().insertOne({ org_id: 'o' });
    },
    () => [{ id: 'o', deltas: { rows: 1 } }],
  );

describe('counter documents', () => {
  it('a write finished during the rebuild is neither lost nor doubled', async () => {
    await rows().insertMany([{ org_id: 'o' }, { org_id: 'o' }]);
    let raced = false;
    const counts = await here.read(
      'o',
      'o',
      async () => {
        const c = await recount();
        if (!raced) {
          raced = true;
          await addRow(replica); // after the pass counted the rows, before the counter is stored
        }
        return c;
      },
      now,
    );
    expect(counts).toEqual({ rows: 3 });
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 3 });
    await addRow(here);
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 4 });
  });

  it('a write whose row the rebuild counts but whose deltas come after it is counted once', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = replica.track(
      'o',
      ['o'],
      async () => {
        await rows().insertOne({ org_id: 'o' });
        await gate; // the row is written, the deltas are not added yet
      },
      () => [{ id: 'o', deltas: { rows: 1 } }],
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 1 }); // answered, not stored: a writer is in flight
    release();
    await slow;
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 1 });
    expect(await store.collection('counters').findOne({ _id: 'o' })).toMatchObject({ ready: true, pending: 0 });
    await addRow(replica);
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 2 });
  });

  it("this process's writers wait while it rebuilds; invalidate makes the next read rebuild", async () => {
    await rows().insertOne({ org_id: 'o' });
    const order: string[] = [];
    let write: Promise<unknown> = Promise.resolve();
    const read = here.read(
      'o',
      'o',
      async () => {
        write = addRow(here).then(() => order.push('write'));
        const c = await recount();
        order.push('recount');
        return c;
      },
      now,
    );
    expect(await read).toEqual({ rows: 1 });
    await write;
    expect(order).toEqual(['recount', 'write']);
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 2 });
    await rows().deleteMany({});
    expect(await here.invalidate()).toBe(1);
    expect(await here.read('o', 'o', recount, now)).toEqual({ rows: 0 });
  });

  it('a running maximum keeps the greatest value whatever order the writes land in', async () => {
    const stamp = (at: number) =>
      here.track(
        'o',
        ['o'],
        async () => {
          await rows().insertOne({ org_id: 'o' });
        },
        () => [{ id: 'o', deltas: { rows: 1 }, latest: { last: at } }],
      );
    const recountWithLatest = async (): Promise<Counts> => ({ ...(await recount()), last: 20 });
    expect(await here.read('o', 'o', recountWithLatest, now)).toEqual({ rows: 0, last: 20 });
    await stamp(30);
    await stamp(25);
    expect(await here.read('o', 'o', recountWithLatest, now)).toEqual({ rows: 2, last: 30 });
    await stamp(31);
    expect(await here.read('o', 'o', recountWithLatest, now)).toEqual({ rows: 3, last: 31 });
  });
});
