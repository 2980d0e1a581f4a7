/**
 * The storage port's contract suite (DESIGN.md "Storage"), run against every adapter:
 * sqlite (temp file), memory, and docdb whenever MONGODB_URI is set. Every assertion is
 * about port behaviour only, so an adapter passing it is interchangeable with the others.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../core/errors';
import { openStore } from './open-store';
import type { Collection, Doc, Store } from './port';

interface Backend {
  name: string;
  enabled: boolean;
  /** Whether data outlives close() and a second handle sees the same data. */
  persistent: boolean;
  /** A fresh data location; `open` may be called several times on it. */
  setup(): { open(): Promise<Store>; destroy(): Promise<void> };
}

const MONGODB_URI = process.env.MONGODB_URI;
/**
 * Set by .ci/run when MONGODB_URI is its MongoDB-wire stand-in, whose documented limits (not the
 * adapter's) skip the assertions below that say so, on docdb only; real MongoDB runs them all.
 */
const ON_STANDIN = process.env.MONGODB_STANDIN === 'mongo-wire';
const backends: Backend[] = [
  {
    name: 'sqlite',
    enabled: true,
    persistent: true,
    setup() {
      const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-store-'));
      return {
        open: () => openStore({ backend: 'sqlite', dataDir }),
        destroy: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'memory',
    enabled: true,
    persistent: false,
    setup: () => ({ open: () => openStore({ backend: 'memory' }), destroy: async () => {} }),
  },
  {
    name: 'docdb',
    enabled: MONGODB_URI !== undefined,
    persistent: true,
    setup() {
      const database = `planwarden_test_${randomUUID().slice(0, 8)}`;
      const uri = MONGODB_URI as string;
      return {
        open: () => openStore({ backend: 'docdb', uri, database }),
        async destroy() {
          const { MongoClient } = await import('mongodb');
          const client = await new MongoClient(uri).connect();
          await client.db(database).dropDatabase();
          await client.close();
        },
      };
    },
  },
];

/** Schemaless documents for the contract (typed stores bring their own interfaces). */
type AnyDoc = Doc & Record<string, unknown>;
const ids = (docs: Doc[]) => docs.map((d) => d._id).sort();
const ISO = (s: string) => `2100-01-01T${s}.000Z`;

describe.each(backends)('store conformance: $name', (backend) => {
  describe.runIf(backend.enabled)('contract', () => {
    let env: ReturnType<Backend['setup']>;
    let opened: Store[];
    let store: Store;
    const open = async () => {
      const s = await env.open();
      opened.push(s);
      return s;
    };

    beforeEach(async () => {
      env = backend.setup();
      opened = [];
      store = await open();
    });
    afterEach(async () => {
      for (const s of opened) await s.close();
      await env.destroy();
    });

    describe('documents and names', () => {
      it('inserts with a generated string _id without mutating the input, and reads it back', async () => {
        const c = store.collection<AnyDoc>('things');
        const input = { name: 'a', nested: { list: [1, 'two', true, null, { x: 1 }] }, n: 1.5 };
        const stored = await c.insertOne(input);
        expect(stored._id).toMatch(/^[0-9a-f-]{36}$/);
        expect(input).not.toHaveProperty('_id');
        expect(await c.findOne({ _id: stored._id })).toEqual({ ...input, _id: stored._id });
        expect((await c.insertOne({ _id: 'mine', v: 1 }))._id).toBe('mine');
      });

      it('drops undefined properties and rejects non-JSON documents', async () => {
        const c = store.collection<AnyDoc>('things');
        const { _id } = await c.insertOne({ a: undefined, b: 1 });
        const back = await c.findOne({ _id });
        expect(back).toEqual({ _id, b: 1 });
        expect(back).not.toHaveProperty('a');
        for (const bad of [{ a: new Date() }, { a: NaN }, { a: [undefined] }, { a: new Map() }, { _id: 5 }, { $x: 1 }, { _ttl_x: 1 }]) {
          await expect(c.insertOne(bad as Doc)).rejects.toThrow(TypeError);
        }
        expect(await c.count({})).toBe(1);
      });

      it('validates collection names', async () => {
        for (const bad of ['', 'Users', '1x', 'a-b', 'a.b', '_meta', 'a__b', 'sqlite_master', 'system.x', 'x'.repeat(64)]) {
          expect(() => store.collection(bad)).toThrow();
        }
        expect(store.collection<AnyDoc>('users_2').name).toBe('users_2');
        await expect(store.ensureIndexes('bad-name', [])).rejects.toThrow();
      });

      it('rejects a duplicate _id with ConflictError', async () => {
        const c = store.collection<AnyDoc>('things');
        await c.insertOne({ _id: 'x', v: 1 });
        const err = await c.insertOne({ _id: 'x', v: 2 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConflictError);
        expect((err as ConflictError).status).toBe(409);
        expect(await c.findOne({ _id: 'x' })).toEqual({ _id: 'x', v: 1 });
      });
    });

    describe('filters', () => {
      let people: Collection<AnyDoc>;
      beforeEach(async () => {
        people = store.collection<AnyDoc>('people');
        await people.insertMany([
          { _id: 'p1', name: 'ann', age: 30, active: true, tags: ['admin', 'ops'], address: { city: 'Oslo', zip: '0150' }, at: ISO('01:00:00') },
          { _id: 'p2', name: 'bob', age: 25, active: false, tags: ['ops'], address: { city: 'Bergen' }, nick: null, at: ISO('02:00:00') },
          { _id: 'p3', name: 'cid', age: '40', active: 1, address: { city: 'Oslo', zip: '0151' }, at: ISO('03:00:00') },
          { _id: 'p4', name: 'dee', score: 1.5, tags: [], nick: 'd', at: ISO('04:00:00') },
          { _id: 'p5', name: 'eve', age: 35, active: true, tags: ['dev'], address: null, at: ISO('05:00:00') },
        ]);
      });
      const match = async (filter: Record<string, unknown>) => ids(await people.find(filter));

      it('equality is type-strict: numbers, strings and booleans never match each other', async () => {
        expect(await match({ name: 'ann' })).toEqual(['p1']);
        expect(await match({ age: 30 })).toEqual(['p1']);
        expect(await match({ age: '40' })).toEqual(['p3']);
        expect(await match({ age: 40 })).toEqual([]);
        expect(await match({ active: true })).toEqual(['p1', 'p5']);
        expect(await match({ active: { $eq: 1 } })).toEqual(['p3']);
        expect(await match({ active: false })).toEqual(['p2']);
        expect(await match({ active: 0 })).toEqual([]);
        expect(await match({ score: 1.5 })).toEqual(['p4']);
        const o = store.collection<AnyDoc>('objects');
        await o.insertMany([
          { _id: 'o1', v: { a: 1 } },
          { _id: 'o2', v: '{"a":1}' },
          { _id: 'o3', v: [2] },
          { _id: 'o4', v: '[2]' },
        ]);
        expect(ids(await o.find({ v: '{"a":1}' }))).toEqual(['o2']);
        expect(ids(await o.find({ v: { $in: ['[2]', 'x'] } }))).toEqual(['o4']);
        expect(ids(await o.find({ v: { $gte: '[' } }))).toEqual(['o2', 'o4']);
        expect(ids(await o.find({ v: { a: 1 } }))).toEqual(['o1']);
      });

      it('dotted paths and whole-object equality', async () => {
        expect(await match({ 'address.city': 'Oslo' })).toEqual(['p1', 'p3']);
        expect(await match({ 'address.zip': { $gte: '0151' } })).toEqual(['p3']);
        expect(await match({ address: { city: 'Bergen' } })).toEqual(['p2']);
        expect(await match({ address: { $eq: { city: 'Oslo' } } })).toEqual([]);
        expect(await match({ 'address.city': 'Oslo', active: true })).toEqual(['p1']);
      });

      it('null matches null and absent; $ne and $exists follow', async () => {
        expect(await match({ nick: null })).toEqual(['p1', 'p2', 'p3', 'p5']);
        expect(await match({ nick: { $eq: null } })).toEqual(['p1', 'p2', 'p3', 'p5']);
        expect(await match({ nick: { $ne: null } })).toEqual(['p4']);
        expect(await match({ nick: { $exists: true } })).toEqual(['p4']);
        expect(await match({ nick: { $exists: false } })).toEqual(['p1', 'p2', 'p3', 'p5']);
        expect(await match({ address: { $exists: true } })).toEqual(['p1', 'p2', 'p3']);
        expect(await match({ 'address.zip': { $exists: true } })).toEqual(['p1', 'p3']);
        expect(await match({ 'address.zip': null })).toEqual(['p2', 'p4', 'p5']);
        expect(await match({ age: { $ne: 30 } })).toEqual(['p2', 'p3', 'p4', 'p5']);
      });

      it('$in and $nin, including null, mixed types and empty lists', async () => {
        expect(await match({ age: { $in: [25, 35] } })).toEqual(['p2', 'p5']);
        expect(await match({ age: { $in: [30, '40'] } })).toEqual(['p1', 'p3']);
        expect(await match({ age: { $in: [null, 25] } })).toEqual(['p2', 'p4']);
        expect(await match({ active: { $in: [false, 1] } })).toEqual(['p2', 'p3']);
        expect(await match({ age: { $in: [] } })).toEqual([]);
        expect(await match({ age: { $nin: [25, 35] } })).toEqual(['p1', 'p3', 'p4']);
        expect(await match({ age: { $nin: [] } })).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
      });

      it('ranges on numbers and strings are type-bracketed', async () => {
        expect(await match({ age: { $gt: 25 } })).toEqual(['p1', 'p5']);
        expect(await match({ age: { $gte: 25, $lt: 35 } })).toEqual(['p1', 'p2']);
        expect(await match({ age: { $lte: 30 } })).toEqual(['p1', 'p2']);
        expect(await match({ age: { $gt: '3' } })).toEqual(['p3']);
        expect(await match({ active: { $gte: 0 } })).toEqual(['p3']);
        expect(await match({ score: { $lt: 2 } })).toEqual(['p4']);
        expect(await match({ name: { $gt: 'bob', $lte: 'dee' } })).toEqual(['p3', 'p4']);
        expect(await match({ at: { $gte: ISO('02:00:00'), $lt: ISO('04:00:00') } })).toEqual(['p2', 'p3']);
      });

      it('type-strict equality, $in and ranges across booleans, 0/1, numeric strings and JSON-looking strings', async () => {
        const t = store.collection<AnyDoc>('typed');
        await t.insertMany([
          { _id: 't1', x: true },
          { _id: 't0', x: false },
          { _id: 'n1', x: 1 },
          { _id: 'n0', x: 0 },
          { _id: 'n2', x: 2.5 },
          { _id: 'n9', x: 9 },
          { _id: 's1', x: '1' },
          { _id: 's9', x: '9' },
          { _id: 'sa', x: 'abc' },
          { _id: 'sZ', x: 'A' },
          { _id: 'sb', x: '[1]' },
          { _id: 'sc', x: '{"a":1}' },
          { _id: 'sp', x: '}' },
          { _id: 'se', x: '' },
          { _id: 'o', x: { a: 1 } },
          { _id: 'nl', x: null },
          { _id: 'ab' },
        ]);
        const m = async (f: Record<string, unknown>) => ids(await t.find(f));
        const all = ['ab', 'n0', 'n1', 'n2', 'n9', 'nl', 'o', 's1', 's9', 'sa', 'sZ', 'sb', 'sc', 'se', 'sp', 't0', 't1'].sort();
        const without = (...out: string[]) => all.filter((id) => !out.includes(id));
        // Equality: a number never matches a boolean or a string, a string never a number or an object.
        expect(await m({ x: 1 })).toEqual(['n1']);
        expect(await m({ x: 0 })).toEqual(['n0']);
        expect(await m({ x: 9 })).toEqual(['n9']);
        expect(await m({ x: 2.5 })).toEqual(['n2']);
        expect(await m({ x: true })).toEqual(['t1']);
        expect(await m({ x: false })).toEqual(['t0']);
        expect(await m({ x: '1' })).toEqual(['s1']);
        expect(await m({ x: '9' })).toEqual(['s9']);
        expect(await m({ x: '' })).toEqual(['se']);
        expect(await m({ x: '{"a":1}' })).toEqual(['sc']);
        expect(await m({ x: '[1]' })).toEqual(['sb']);
        expect(await m({ x: { a: 1 } })).toEqual(['o']);
        expect(await t.count({ x: 1 })).toBe(1);
        expect(await t.count({ x: '9' })).toBe(1);
        expect(await m({ x: { $ne: 1 } })).toEqual(without('n1'));
        expect(await m({ x: { $ne: 9 } })).toEqual(without('n9'));
        expect(await m({ x: { $ne: '1' } })).toEqual(without('s1'));
        // $in / $nin.
        expect(await m({ x: { $in: [1, 9] } })).toEqual(['n1', 'n9']);
        expect(await m({ x: { $in: [2.5, 9] } })).toEqual(['n2', 'n9']);
        expect(await m({ x: { $in: ['1', 'abc'] } })).toEqual(['s1', 'sa']);
        expect(await m({ x: { $in: ['{"a":1}', 'A'] } })).toEqual(['sZ', 'sc']);
        expect(await m({ x: { $in: [9, '9', true] } })).toEqual(['n9', 's9', 't1']);
        expect(await m({ x: { $nin: [9, 2.5] } })).toEqual(without('n2', 'n9'));
        expect(await m({ x: { $nin: ['9', 'abc'] } })).toEqual(without('s9', 'sa'));
        // Number ranges never reach strings, objects or booleans.
        expect(await m({ x: { $gt: 5 } })).toEqual(['n9']);
        expect(await m({ x: { $gte: 2 } })).toEqual(['n2', 'n9']);
        expect(await m({ x: { $gt: 0.5 } })).toEqual(['n1', 'n2', 'n9']);
        expect(await m({ x: { $lt: 5 } })).toEqual(['n0', 'n1', 'n2']);
        expect(await m({ x: { $lt: -1 } })).toEqual([]);
        expect(await m({ x: { $gt: 2, $lt: 100 } })).toEqual(['n2', 'n9']);
        // String ranges never reach numbers, booleans or objects.
        expect(await m({ x: { $lt: 'Z' } })).toEqual(['s1', 's9', 'sZ', 'se']);
        expect(await m({ x: { $lte: '[' } })).toEqual(['s1', 's9', 'sZ', 'se']);
        expect(await m({ x: { $lt: '~' } })).toEqual(['s1', 's9', 'sa', 'sZ', 'sb', 'sc', 'se', 'sp'].sort());
        expect(await m({ x: { $gte: '' } })).toEqual(['s1', 's9', 'sa', 'sZ', 'sb', 'sc', 'se', 'sp'].sort());
        expect(await m({ x: { $gt: '|' } })).toEqual(['sp']);
        expect(await m({ x: { $gte: 'A', $lt: 'b' } })).toEqual(['sZ', 'sa', 'sb']);
        expect(await t.count({ x: { $gt: 5 } })).toBe(1);
        expect(await t.count({ x: { $lt: 'Z' } })).toBe(4);
      });

      it('type-strict matching on fields that hold arrays in some documents', async () => {
        const t = store.collection<AnyDoc>('typed_arrays');
        await t.insertMany([
          { _id: 'a1', y: [true, '1'] },
          { _id: 'a2', y: [2, 1] },
          { _id: 'a3', y: 1 },
          { _id: 'a4', y: '[1]' },
          { _id: 'a5', y: [1] },
          { _id: 'a6', y: true },
          { _id: 'a7', y: '9' },
        ]);
        const m = async (f: Record<string, unknown>) => ids(await t.find(f));
        expect(await m({ y: 1 })).toEqual(['a2', 'a3', 'a5']);
        expect(await m({ y: true })).toEqual(['a1', 'a6']);
        expect(await m({ y: '1' })).toEqual(['a1']);
        expect(await m({ y: '[1]' })).toEqual(['a4']);
        expect(await m({ y: [1] })).toEqual(['a5']);
        expect(await m({ y: { $in: [2, '9'] } })).toEqual(['a2', 'a7']);
        expect(await m({ y: { $gt: 1.5 } })).toEqual(['a2']);
        expect(await m({ y: { $lt: 'z' } })).toEqual(['a1', 'a4', 'a7']);
        expect(await m({ y: { $ne: 1 } })).toEqual(['a1', 'a4', 'a6', 'a7']);
      });

      it('filters on _id', async () => {
        expect(await match({ _id: 'p2' })).toEqual(['p2']);
        expect(await match({ _id: { $in: ['p1', 'p4', 'zz'] } })).toEqual(['p1', 'p4']);
        expect(await match({ _id: { $nin: ['p1', 'p2'] } })).toEqual(['p3', 'p4', 'p5']);
        expect(await match({ _id: { $ne: 'p1' } })).toEqual(['p2', 'p3', 'p4', 'p5']);
        expect(await match({ _id: { $gt: 'p3' } })).toEqual(['p4', 'p5']);
        expect(await match({ _id: null })).toEqual([]);
      });

      // The stand-in needs one element to match both operators.
      it.skipIf(backend.name === 'docdb' && ON_STANDIN)('operators on an array field each match on any element', async () => {
        const v = store.collection<AnyDoc>('arrays');
        await v.insertMany([
          { _id: 'a1', v: [1, 9] },
          { _id: 'a2', v: [3, 4] },
        ]);
        expect(ids(await v.find({ v: { $gt: 4, $lt: 2 } }))).toEqual(['a1']);
      });

      // The stand-in also looks into nested arrays for $nin (found once the assertion above was
      // split out; not in its README's list).
      it.skipIf(backend.name === 'docdb' && ON_STANDIN)('$nin on an array field does not look into nested arrays', async () => {
        const v = store.collection<AnyDoc>('arrays');
        await v.insertMany([
          { _id: 'a1', v: [1, 9] },
          { _id: 'a2', v: [3, 4] },
          { _id: 'a5', v: [[1, 2], 3] },
        ]);
        expect(ids(await v.find({ v: { $nin: [1, 5] } }))).toEqual(['a2', 'a5']);
      });

      it('array fields match on any element, and whole arrays by equality', async () => {
        expect(await match({ tags: 'ops' })).toEqual(['p1', 'p2']);
        expect(await match({ tags: { $in: ['dev', 'admin'] } })).toEqual(['p1', 'p5']);
        expect(await match({ tags: { $ne: 'ops' } })).toEqual(['p3', 'p4', 'p5']);
        expect(await match({ tags: { $nin: ['ops', 'dev'] } })).toEqual(['p3', 'p4']);
        expect(await match({ tags: ['ops'] })).toEqual(['p2']);
        expect(await match({ tags: [] })).toEqual(['p4']);
        expect(await match({ tags: { $exists: true } })).toEqual(['p1', 'p2', 'p4', 'p5']);
        const v = store.collection<AnyDoc>('arrays');
        await v.insertMany([
          { _id: 'a1', v: [1, 9] },
          { _id: 'a2', v: [3, 4] },
          { _id: 'a3', v: 5 },
          { _id: 'a4', v: [null, 2] },
          { _id: 'a5', v: [[1, 2], 3] },
        ]);
        const m = async (f: Record<string, unknown>) => ids(await v.find(f));
        expect(await m({ v: { $gt: 8 } })).toEqual(['a1']);
        expect(await m({ v: 4 })).toEqual(['a2']);
        expect(await m({ v: 5 })).toEqual(['a3']);
        expect(await m({ v: null })).toEqual(['a4']);
        expect(await m({ v: [1, 2] })).toEqual(['a5']);
        expect(await m({ v: [3, 4] })).toEqual(['a2']);
        expect(await m({ v: { $in: [9, 5] } })).toEqual(['a1', 'a3']);
        expect(await m({ v: { $ne: 4 } })).toEqual(['a1', 'a3', 'a4', 'a5']);
      });

      it('rejects invalid paths, operators and operands', async () => {
        const bad: Record<string, unknown>[] = [
          { 'a;drop table people': 1 },
          { 'a..b': 1 },
          { 'a.': 1 },
          { 'tags.0': 'x' },
          { $or: [] },
          { "a'b": 1 },
          { a: { $regex: 'x' } },
          { a: { $gt: 1, b: 1 } },
          { a: undefined },
          { a: new Date() },
          { a: { $in: 'x' } },
          { a: { $gt: true } },
          { a: { $gt: null } },
          { a: { $exists: 1 } },
          { a: { $eq: undefined } },
        ];
        for (const f of bad) await expect(people.find(f), JSON.stringify(Object.keys(f))).rejects.toThrow();
        await expect(people.find({}, { sort: { 'a b': 1 } })).rejects.toThrow();
        await expect(people.find({}, { sort: { a: 2 as 1 } })).rejects.toThrow();
        await expect(people.find({}, { skip: -1 })).rejects.toThrow();
        await expect(people.find({}, { limit: 1.5 })).rejects.toThrow();
        await expect(people.distinct('a-b', {})).rejects.toThrow();
        await expect(people.count({ 'x y': 1 })).rejects.toThrow();
        await expect(people.deleteMany({ 'x y': 1 })).rejects.toThrow();
        expect(await people.count({})).toBe(5);
      });
    });

    describe('sort, paging, count, distinct', () => {
      let items: Collection<AnyDoc>;
      beforeEach(async () => {
        items = store.collection<AnyDoc>('items');
        await items.insertMany([
          { _id: 'i1', n: 3, g: 'a' },
          { _id: 'i2', n: 1, g: 'b' },
          { _id: 'i3', g: 'a' },
          { _id: 'i4', n: 2, g: 'b', t: ['x', 'y'] },
          { _id: 'i5', n: 5, g: 'a', t: ['x', 'y'] },
          { _id: 'i6', n: 4, g: 'c', t: 'x', sub: { k: 'm' } },
          { _id: 'i7', n: 6, g: 'c', t: null, sub: { k: 'n' } },
        ]);
      });
      const order = async (...args: Parameters<Collection<AnyDoc>['find']>) => (await items.find(...args)).map((d) => d._id);

      it('sorts ascending with missing first and descending with missing last', async () => {
        expect(await order({}, { sort: { n: 1 } })).toEqual(['i3', 'i2', 'i4', 'i1', 'i6', 'i5', 'i7']);
        expect(await order({}, { sort: { n: -1 } })).toEqual(['i7', 'i5', 'i6', 'i1', 'i4', 'i2', 'i3']);
        expect(await order({}, { sort: { _id: -1 } })).toEqual(['i7', 'i6', 'i5', 'i4', 'i3', 'i2', 'i1']);
      });

      it('sorts on several keys with mixed directions', async () => {
        expect(await order({}, { sort: { g: 1, n: -1 } })).toEqual(['i5', 'i1', 'i3', 'i4', 'i2', 'i7', 'i6']);
        expect(await order({}, { sort: { g: -1, n: 1 } })).toEqual(['i6', 'i7', 'i2', 'i4', 'i3', 'i1', 'i5']);
        expect(await order({ g: { $in: ['a', 'c'] } }, { sort: { 'sub.k': -1, n: 1 } })).toEqual(['i7', 'i6', 'i3', 'i1', 'i5']);
      });

      it('skips and limits after sorting', async () => {
        expect(await order({}, { sort: { n: 1 }, skip: 1, limit: 2 })).toEqual(['i2', 'i4']);
        expect(await order({}, { sort: { n: 1 }, skip: 5 })).toEqual(['i5', 'i7']);
        expect(await order({}, { sort: { n: 1 }, limit: 0 })).toEqual([]);
        expect(await order({ g: 'a' }, { sort: { n: 1 }, limit: 10 })).toEqual(['i3', 'i1', 'i5']);
        expect(await order({}, { sort: { n: 1 }, skip: 50 })).toEqual([]);
      });

      it('findOne takes the first in sort order', async () => {
        expect((await items.findOne({ g: 'a' }, { sort: { n: -1 } }))?._id).toBe('i5');
        expect((await items.findOne({ g: 'b' }, { sort: { n: 1 } }))?._id).toBe('i2');
        expect(await items.findOne({ g: 'zz' })).toBeNull();
      });

      it('counts', async () => {
        expect(await items.count({})).toBe(7);
        expect(await items.count({ g: 'a' })).toBe(3);
        expect(await items.count({ n: { $gte: 3 }, g: { $ne: 'c' } })).toBe(2);
        expect(await items.count({ t: 'x' })).toBe(3);
      });

      // The stand-in's $group folds a scalar into an array group of the same value.
      it.skipIf(backend.name === 'docdb' && ON_STANDIN)('distinct keeps an array value whole, apart from a scalar it contains', async () => {
        const t = await items.distinct('t', {});
        expect(t).toHaveLength(3);
        expect(t).toEqual(expect.arrayContaining([['x', 'y'], 'x', null]));
      });

      it('distinct: null kept, absent dropped, filter applied', async () => {
        expect((await items.distinct('g', {})).sort()).toEqual(['a', 'b', 'c']);
        expect((await items.distinct('n', { g: 'a' })).sort()).toEqual([3, 5]);
        expect((await items.distinct('sub.k', {})).sort()).toEqual(['m', 'n']);
        expect(await items.distinct('missing', {})).toEqual([]);
      });
    });

    describe('long $in / $nin lists', () => {
      it("match as short ones do, far beyond SQLite's 32,766 parameters, strings and numbers, on plain, indexed and array fields", async () => {
        const c = store.collection<AnyDoc>('longlists');
        await store.ensureIndexes('longlists', [{ name: 'k', keys: { k: 1 } }]);
        await c.insertMany([
          { _id: 'a', k: 'key-17', n: 17, tags: ['x', 'key-40000'] },
          { _id: 'b', k: 'key-39999', n: 39_999, tags: [] },
          { _id: 'c', k: 'other', n: -1, tags: ['key-3'] },
          { _id: 'd', k: 17, n: '17' },
          { _id: 'e', k: '[1]', n: true },
        ]);
        const strings = Array.from({ length: 40_000 }, (_, i) => `key-${i}`);
        const numbers = Array.from({ length: 40_000 }, (_, i) => i);
        expect(ids(await c.find({ k: { $in: strings } }))).toEqual(['a', 'b']);
        expect(ids(await c.find({ k: { $nin: strings } }))).toEqual(['c', 'd', 'e']);
        expect(ids(await c.find({ n: { $in: numbers } }))).toEqual(['a', 'b']);
        expect(ids(await c.find({ tags: { $in: strings } }))).toEqual(['c']);
        expect(ids(await c.find({ tags: { $in: [...strings, 'key-40000'] } }))).toEqual(['a', 'c']);
        expect(ids(await c.find({ k: { $in: [...strings, 17, '[1]'] } }))).toEqual(['a', 'b', 'd', 'e']);
        expect(await c.count({ _id: { $in: [...strings, 'b', 'e'] } })).toBe(2);
        expect(await c.count({ n: { $in: [...numbers.map((x) => x + 0.5), 1] } })).toBe(0);
      });
    });

    describe('raw JSON reads (findRawJson)', () => {
      it("returns find's documents as JSON text, same filter, sort, skip and limit, same order", async () => {
        const c = store.collection<AnyDoc>('raw');
        await c.insertMany([
          { _id: 'r1', n: 3, g: 'a', s: 'quote " backslash \\ newline \n tab \t \u0001 \u2028 é 😀' },
          { _id: 'r2', n: 1, g: 'b', list: [1, 'two', true, null, { x: 1.5 }] },
          { _id: 'r3', g: 'a', nested: { deep: { k: null } } },
          { _id: 'r4', n: 2, g: 'a', big: 1e21, small: 5e-324, neg: -0.25 },
        ]);
        const cases: Parameters<Collection<AnyDoc>['find']>[] = [
          [{}],
          [{ g: 'a' }, { sort: { n: -1 } }],
          [{}, { sort: { n: 1 }, skip: 1, limit: 2 }],
          [{ n: { $gte: 2 } }, { sort: { _id: 1 } }],
          [{ g: 'zz' }],
        ];
        for (const args of cases) {
          const docs = await c.find(...args);
          const texts = await c.findRawJson(...args);
          expect(texts.map((t) => JSON.parse(t) as unknown)).toEqual(docs);
          // Byte for byte what JSON.stringify makes of find's document: same keys, same order, same escapes.
          expect(texts).toEqual(docs.map((d) => JSON.stringify(d)));
        }
        expect(await c.findRawJson({}, { sort: { n: 1 }, limit: 0 })).toEqual([]);
      });

      it("keeps the document's key order: _id first, insertion order, updated keys in place, new keys appended", async () => {
        const c = store.collection<AnyDoc>('raw');
        await c.insertOne({ _id: 'k', b: 1, a: 'x', c: { y: 1, x: 2 }, z: null });
        await c.updateOne({ _id: 'k' }, { $set: { a: 'y', d: 4 }, $inc: { b: 1 } });
        expect(await c.findRawJson({ _id: 'k' })).toEqual(['{"_id":"k","b":2,"a":"y","c":{"y":1,"x":2},"z":null,"d":4}']);
        await c.insertOne({ q: 1, p: 2 });
        const [text] = await c.findRawJson({ q: 1 });
        expect(text).toMatch(/^\{"_id":"[0-9a-f-]{36}","q":1,"p":2\}$/);
      });

      it('refuses what find refuses', async () => {
        const c = store.collection<AnyDoc>('raw');
        await expect(c.findRawJson({ 'a..b': 1 })).rejects.toThrow();
        await expect(c.findRawJson({}, { limit: -1 })).rejects.toThrow();
        await expect(c.findRawJson({ a: { $regex: 'x' } } as never)).rejects.toThrow();
      });
    });

    describe('updates', () => {
      let c: Collection<AnyDoc>;
      beforeEach(async () => {
        c = store.collection<AnyDoc>('docs');
        await c.insertMany([
          { _id: 'u1', k: 'same', a: 1, n: 5, nested: { x: 1 }, s: 'str' },
          { _id: 'u2', k: 'same', a: 2, n: 1 },
          { _id: 'u3', k: 'other', a: 3 },
        ]);
      });

      it('$set creates dotted paths; updateOne touches only one match', async () => {
        const r = await c.updateOne({ _id: 'u1' }, { $set: { a: 10, 'nested.y': 2, 'deep.er.z': 'z', list: [1, { q: true }] } });
        expect(r).toEqual({ matched: 1, upserted: false });
        expect(await c.findOne({ _id: 'u1' })).toEqual({
          _id: 'u1',
          k: 'same',
          a: 10,
          n: 5,
          s: 'str',
          nested: { x: 1, y: 2 },
          deep: { er: { z: 'z' } },
          list: [1, { q: true }],
        });
        expect(await c.updateOne({ k: 'same' }, { $set: { hit: true } })).toEqual({ matched: 1, upserted: false });
        expect(await c.count({ hit: true })).toBe(1);
        expect(await c.updateOne({ k: 'none' }, { $set: { hit: true } })).toEqual({ matched: 0, upserted: false });
        expect(await c.count({})).toBe(3);
      });

      it('$unset removes top-level and dotted fields; absent paths are a no-op', async () => {
        await c.updateOne({ _id: 'u1' }, { $unset: { a: true, 'nested.x': true, 'missing.path': true, 's.deeper': true } });
        expect(await c.findOne({ _id: 'u1' })).toEqual({ _id: 'u1', k: 'same', n: 5, nested: {}, s: 'str' });
      });

      it('$inc adds to numbers and creates missing fields; refuses non-numbers', async () => {
        await c.updateOne({ _id: 'u1' }, { $inc: { n: 1, missing: 2, 'obj.c': -1.5 } });
        expect(await c.findOne({ _id: 'u1' })).toMatchObject({ n: 6, missing: 2, obj: { c: -1.5 } });
        await expect(c.updateOne({ _id: 'u1' }, { $inc: { s: 1 } })).rejects.toThrow();
        await expect(c.updateOne({ _id: 'u1' }, { $set: { 's.x': 1 } })).rejects.toThrow();
        expect(await c.findOne({ _id: 'u1' })).toMatchObject({ s: 'str', n: 6 });
      });

      it('updateMany applies every operator to every match', async () => {
        const r = await c.updateMany({ k: 'same' }, { $set: { flag: 'y' }, $unset: { a: true }, $inc: { n: 10 } });
        expect(r).toEqual({ matched: 2 });
        expect(await c.find({ k: 'same' }, { sort: { _id: 1 } })).toEqual([
          { _id: 'u1', k: 'same', n: 15, nested: { x: 1 }, s: 'str', flag: 'y' },
          { _id: 'u2', k: 'same', n: 11, flag: 'y' },
        ]);
        expect(await c.findOne({ _id: 'u3' })).toEqual({ _id: 'u3', k: 'other', a: 3 });
        expect(await c.updateMany({ k: 'none' }, { $set: { flag: 'z' } })).toEqual({ matched: 0 });
      });

      it('upsert inserts the equality fields plus $set, $inc and $setOnInsert; later updates skip $setOnInsert', async () => {
        const filter = { org: 'o1', 'meta.kind': 'k', level: { $eq: 3 }, score: { $gt: 1 } };
        const update = { $set: { v: 1 }, $setOnInsert: { created: 'first' }, $inc: { hits: 1 } };
        expect(await c.updateOne(filter, update, { upsert: true })).toEqual({ matched: 0, upserted: true });
        const inserted = await c.findOne({ org: 'o1' });
        expect(inserted).toEqual({ _id: expect.any(String), org: 'o1', meta: { kind: 'k' }, level: 3, v: 1, created: 'first', hits: 1 });
        expect(typeof inserted?._id).toBe('string');
        const again = { $set: { v: 2 }, $setOnInsert: { created: 'second' }, $inc: { hits: 1 } };
        expect(await c.updateOne({ org: 'o1', 'meta.kind': 'k' }, again, { upsert: true })).toEqual({ matched: 1, upserted: false });
        expect(await c.findOne({ org: 'o1' })).toEqual({ ...inserted, v: 2, hits: 2 });
        expect(await c.count({ org: 'o1' })).toBe(1);
        await c.updateOne({ _id: 'fixed' }, { $set: { a: 1 } }, { upsert: true });
        expect(await c.findOne({ _id: 'fixed' })).toEqual({ _id: 'fixed', a: 1 });
      });

      it('bulkUpdateOne runs each updateOne in order (upserts included) and returns the totals', async () => {
        const r = await c.bulkUpdateOne([
          { filter: { k: 'same' }, update: { $inc: { n: 1 } } },
          { filter: { _id: 'u3' }, update: { $set: { a: 30 } } },
          { filter: { _id: 'fresh' }, update: { $inc: { hits: 1 }, $setOnInsert: { created: 'bulk' } }, upsert: true },
          { filter: { _id: 'fresh' }, update: { $inc: { hits: 2 }, $setOnInsert: { created: 'again' } }, upsert: true },
          { filter: { k: 'none' }, update: { $set: { a: 0 } } },
        ]);
        expect(r).toEqual({ matched: 3, upserted: 1 });
        expect(await c.count({ n: { $in: [6, 2] } })).toBe(1);
        expect(await c.findOne({ _id: 'u3' })).toEqual({ _id: 'u3', k: 'other', a: 30 });
        expect(await c.findOne({ _id: 'fresh' })).toEqual({ _id: 'fresh', hits: 3, created: 'bulk' });
        expect(await c.count({})).toBe(4);
        expect(await c.bulkUpdateOne([])).toEqual({ matched: 0, upserted: 0 });
        await expect(c.bulkUpdateOne([{ filter: { _id: 'u1' }, update: { $inc: { s: 1 } } }])).rejects.toThrow();
      });

      it('rejects malformed updates without writing', async () => {
        const bad: Record<string, unknown>[] = [
          {},
          { $set: {} },
          { $push: { a: 1 } },
          { $set: { a: 1 }, $inc: { a: 1 } },
          { $set: { a: 1, 'a.b': 2 } },
          { $set: { _id: 'x' } },
          { $inc: { a: '1' } },
          { $set: { a: new Date() } },
          { $set: { a: undefined } },
          { $set: { 'bad path': 1 } },
          { $unset: { 'a.0': true } },
          { $setOnInsert: { a: 1 }, $unset: { a: true } },
        ];
        for (const u of bad) await expect(c.updateOne({ _id: 'u3' }, u), JSON.stringify(u)).rejects.toThrow();
        await expect(c.updateMany({}, {})).rejects.toThrow();
        await expect(c.findOneAndUpdate({}, {})).rejects.toThrow();
        expect(await c.findOne({ _id: 'u3' })).toEqual({ _id: 'u3', k: 'other', a: 3 });
      });

      it('findOneAndUpdate returns after (default) or before, in sort order', async () => {
        const after = await c.findOneAndUpdate({ k: 'same' }, { $set: { state: 'taken' } }, { sort: { n: -1 } });
        expect(after).toMatchObject({ _id: 'u1', state: 'taken' });
        const before = await c.findOneAndUpdate({ state: { $exists: false } }, { $set: { state: 'taken' } }, { sort: { a: -1 }, returnDocument: 'before' });
        expect(before).toEqual({ _id: 'u3', k: 'other', a: 3 });
        expect(await c.findOne({ _id: 'u3' })).toMatchObject({ state: 'taken' });
        expect(await c.findOneAndUpdate({ k: 'none' }, { $set: { state: 'x' } })).toBeNull();
        const up = await c.findOneAndUpdate({ k: 'new' }, { $set: { state: 'x' } }, { upsert: true });
        expect(up).toEqual({ _id: expect.any(String), k: 'new', state: 'x' });
        expect(await c.findOneAndUpdate({ k: 'new2' }, { $set: { state: 'y' } }, { upsert: true, returnDocument: 'before' })).toBeNull();
        expect(await c.count({ k: 'new2', state: 'y' })).toBe(1);
      });

      it('a lease: concurrent claims of one queued job have exactly one winner', async () => {
        const jobs = store.collection<AnyDoc>('jobs');
        await jobs.insertOne({ _id: 'job', status: 'queued', lease_until: null });
        const claim = (s: Store, owner: string) =>
          s.collection<AnyDoc>('jobs').findOneAndUpdate({ status: 'queued' }, { $set: { status: 'running', owner, lease_until: ISO('00:05:00') } });
        const handles = backend.persistent ? [store, await open()] : [store, store];
        const results = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w, i) => claim(handles[i % 2], w)));
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await jobs.findOne({ _id: 'job' })).toMatchObject({ status: 'running', owner: winners[0]?.owner });
        // The lease expires: exactly one replica takes it over.
        const reclaim = (w: string) =>
          jobs.findOneAndUpdate({ status: 'running', lease_until: { $lt: ISO('00:10:00') } }, { $set: { owner: w, lease_until: ISO('00:15:00') } });
        expect((await Promise.all([reclaim('r1'), reclaim('r2')])).filter((r) => r !== null)).toHaveLength(1);
      });

      it('deleteOne removes one match, deleteMany all matches', async () => {
        expect(await c.deleteOne({ k: 'same' })).toBe(1);
        expect(await c.count({ k: 'same' })).toBe(1);
        expect(await c.deleteOne({ k: 'none' })).toBe(0);
        await c.insertMany([{ k: 'other' }, { k: 'other' }]);
        expect(await c.deleteMany({ k: 'other' })).toBe(3);
        expect(await c.deleteMany({})).toBe(1);
        expect(await c.count({})).toBe(0);
      });
    });

    describe('indexes', () => {
      let users: Collection<AnyDoc>;
      beforeEach(async () => {
        await store.ensureIndexes('users', [{ name: 'org_email', keys: { org_id: 1, email: 1 }, unique: true }]);
        users = store.collection<AnyDoc>('users');
        await users.insertMany([
          { _id: 'a', org_id: 'o1', email: 'a@x' },
          { _id: 'b', org_id: 'o1', email: 'b@x' },
          { _id: 'c', org_id: 'o2', email: 'a@x' },
        ]);
      });
      const conflict = expect.any(ConflictError);

      it('unique index: ConflictError on insert, update, updateMany, findOneAndUpdate and upsert', async () => {
        await expect(users.insertOne({ org_id: 'o1', email: 'a@x' })).rejects.toEqual(conflict);
        await expect(users.updateOne({ _id: 'b' }, { $set: { email: 'a@x' } })).rejects.toEqual(conflict);
        await expect(users.findOneAndUpdate({ _id: 'c' }, { $set: { org_id: 'o1' } })).rejects.toEqual(conflict);
        const upsert = users.updateOne({ org_id: 'o1', email: 'a@x', name: 'other' }, { $set: { n: 1 } }, { upsert: true });
        await expect(upsert).rejects.toEqual(conflict);
        expect(await users.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a', org_id: 'o1', email: 'a@x' },
          { _id: 'b', org_id: 'o1', email: 'b@x' },
          { _id: 'c', org_id: 'o2', email: 'a@x' },
        ]);
        await users.updateOne({ _id: 'b' }, { $set: { email: 'b2@x' } });
        expect(await users.count({ email: 'b2@x' })).toBe(1);
        // Last: on docdb, updateMany is atomic per document only, so earlier matches may stay updated.
        await expect(users.updateMany({ org_id: 'o1' }, { $set: { email: 'same@x' } })).rejects.toEqual(conflict);
      });

      it('unique index: absent and null keys count as one value (MongoDB semantics)', async () => {
        await store.ensureIndexes('codes', [{ name: 'code', keys: { code: 1 }, unique: true }]);
        const codes = store.collection<AnyDoc>('codes');
        await codes.insertOne({ _id: 'n1', x: 1 });
        await expect(codes.insertOne({ x: 2 })).rejects.toEqual(conflict);
        await expect(codes.insertOne({ code: null })).rejects.toEqual(conflict);
        await codes.insertOne({ _id: 'n2', code: 'A' });
        await expect(codes.updateOne({ _id: 'n2' }, { $unset: { code: true } })).rejects.toEqual(conflict);
        await codes.updateOne({ _id: 'n2' }, { $set: { x: 3 } });
        await codes.updateOne({ _id: 'n1' }, { $set: { x: 4 } });
        expect(await codes.count({})).toBe(2);
      });

      it('insertMany is all or none on a conflict with stored or batch documents', async () => {
        const batch = [
          { org_id: 'o1', email: 'n1@x' },
          { org_id: 'o1', email: 'n2@x' },
          { org_id: 'o1', email: 'a@x' },
          { org_id: 'o1', email: 'n3@x' },
        ];
        await expect(users.insertMany(batch)).rejects.toEqual(conflict);
        await expect(
          users.insertMany([
            { org_id: 'o3', email: 'x' },
            { org_id: 'o3', email: 'x' },
          ]),
        ).rejects.toEqual(conflict);
        await expect(
          users.insertMany([
            { _id: 'd', org_id: 'o4', email: 'x' },
            { _id: 'd', org_id: 'o4', email: 'y' },
          ]),
        ).rejects.toEqual(conflict);
        expect(await users.count({})).toBe(3);
        await users.insertMany([]);
        await users.insertMany([
          { org_id: 'o3', email: 'x' },
          { org_id: 'o3', email: 'y' },
        ]);
        expect(await users.count({ org_id: 'o3' })).toBe(2);
      });

      it('ensureIndexes is idempotent and converges a changed spec', async () => {
        const spec = { name: 'by_k', keys: { k: 1 as const } };
        await store.ensureIndexes('things', [spec]);
        await store.ensureIndexes('things', [spec]);
        await store.ensureIndexes('users', [{ name: 'org_email', keys: { org_id: 1, email: 1 }, unique: true }]);
        await store.ensureIndexes('empty_one', []);
        expect(await store.collection<AnyDoc>('empty_one').count({})).toBe(0);
        const things = store.collection<AnyDoc>('things');
        await things.insertMany([{ k: 1 }, { k: 1 }]);
        await expect(store.ensureIndexes('things', [{ ...spec, unique: true }])).rejects.toEqual(conflict);
        await things.deleteOne({ k: 1 });
        await store.ensureIndexes('things', [{ ...spec, unique: true }]);
        await expect(things.insertOne({ k: 1 })).rejects.toEqual(conflict);
        await store.ensureIndexes('things', [{ ...spec, unique: true }]);
      });

      it('rejects invalid index specs', async () => {
        const bad = [
          [{ name: 'Bad-Name', keys: { a: 1 } }],
          [{ name: 'nokeys', keys: {} }],
          [{ name: 'dir', keys: { a: 2 } }],
          [
            { name: 'dup', keys: { a: 1 } },
            { name: 'dup', keys: { b: 1 } },
          ],
          [{ name: 'ttl2', keys: { a: 1, b: 1 }, expireAfterSeconds: 60 }],
          [{ name: 'ttld', keys: { 'a.b': 1 }, expireAfterSeconds: 60 }],
          [{ name: 'ttlu', keys: { a: 1 }, expireAfterSeconds: 60, unique: true }],
          [{ name: 'ttl0', keys: { a: 1 }, expireAfterSeconds: 0 }],
        ];
        for (const specs of bad) await expect(store.ensureIndexes('things', specs as never), JSON.stringify(specs)).rejects.toThrow();
      });

      it('TTL: purgeExpired deletes what is older than now - expireAfterSeconds, tracking every write', async () => {
        await store.ensureIndexes('sessions', [{ name: 'ttl', keys: { expires_at: 1 }, expireAfterSeconds: 3600 }]);
        const s = store.collection<AnyDoc>('sessions');
        await s.insertMany([
          { _id: 's1', expires_at: ISO('00:00:00') },
          { _id: 's2', expires_at: ISO('02:00:00') },
          { _id: 's3' },
          { _id: 's4', expires_at: 'not a date' },
          { _id: 's5', expires_at: '2100-06-01T00:00:00.000Z' },
          { _id: 's6', expires_at: ISO('00:00:00') },
        ]);
        await s.updateOne({ _id: 's5' }, { $set: { expires_at: ISO('00:30:00') } });
        await s.updateOne({ _id: 's6' }, { $unset: { expires_at: true } });
        await s.updateOne({ _id: 's7' }, { $setOnInsert: { expires_at: ISO('00:10:00') } }, { upsert: true });
        await s.updateOne({ _id: 's8', expires_at: ISO('00:20:00') }, { $set: { x: 1 } }, { upsert: true });
        await s.findOneAndUpdate({ _id: 's9' }, { $set: { expires_at: ISO('00:40:00') } }, { upsert: true });
        expect(await store.purgeExpired(new Date(ISO('00:00:00')))).toBe(0);
        expect(await store.purgeExpired(new Date(ISO('02:00:00')))).toBe(5);
        expect(ids(await s.find({}))).toEqual(['s2', 's3', 's4', 's6']);
        expect(await store.purgeExpired(new Date(ISO('03:00:00')))).toBe(0);
        expect(await store.purgeExpired(new Date('2100-01-01T03:00:00.001Z'))).toBe(1);
        for (const doc of await s.find({})) expect(Object.keys(doc).filter((k) => k.startsWith('_ttl_'))).toEqual([]);
        expect(await s.findOne({ _id: 's4' })).toEqual({ _id: 's4', expires_at: 'not a date' });
      });

      it('TTL: an index added later covers documents already stored', async () => {
        const t = store.collection<AnyDoc>('tokens');
        await t.insertMany([
          { _id: 't1', exp: ISO('00:00:00') },
          { _id: 't2', exp: ISO('05:00:00') },
        ]);
        await store.ensureIndexes('tokens', [{ name: 'exp_ttl', keys: { exp: 1 }, expireAfterSeconds: 60 }]);
        expect(await store.purgeExpired(new Date(ISO('01:00:00')))).toBe(1);
        expect(ids(await t.find({}))).toEqual(['t2']);
      });
    });

    describe.runIf(backend.persistent)('persistence', () => {
      it('keeps documents, indexes and array knowledge across close and reopen', async () => {
        await store.ensureIndexes('keep', [{ name: 'k', keys: { k: 1 }, unique: true }]);
        await store.collection<AnyDoc>('keep').insertOne({ _id: 'x', k: 1, tags: ['t'] });
        await store.close();
        opened = opened.filter((s) => s !== store);
        const again = await open();
        const keep = again.collection<AnyDoc>('keep');
        expect(await keep.findOne({ tags: 't' })).toEqual({ _id: 'x', k: 1, tags: ['t'] });
        await expect(keep.insertOne({ k: 1 })).rejects.toEqual(expect.any(ConflictError));
      });

      it("a second handle sees the first one's writes, including new array fields", async () => {
        const other = await open();
        expect(await other.collection<AnyDoc>('shared').count({})).toBe(0);
        await store.collection<AnyDoc>('shared').insertOne({ _id: 'y', labels: ['l1', 'l2'] });
        expect(ids(await other.collection<AnyDoc>('shared').find({ labels: 'l2' }))).toEqual(['y']);
      });
    });
  });
});
