/**
 * Server-free checks of the docdb adapter's translation layer (filters, updates, TTL
 * shadows). The adapter's behaviour against a real server is the conformance suite's job
 * (it runs when MONGODB_URI is set); these pin what is sent, so a regression shows here too.
 */
import { describe, expect, it } from 'vitest';
import { equalityFields, parseFilter, parseUpdate } from '../query';
import { mongoFilter } from './filter';
import { shadowDate, stripShadows, withShadows } from './indexes';
import { databaseFromUri } from './store';
import { mongoUpdate } from './update';

const AT = '2100-01-01T00:00:00.000Z';

describe('docdb adapter translation', () => {
  it('maps filters, turning $exists into null comparisons and colliding operators into $and', () => {
    expect(mongoFilter(parseFilter({ a: 1, 'b.c': { $in: [1, null] }, d: { $exists: true, $ne: 'x' }, e: { $exists: false } }))).toEqual({
      a: { $eq: 1 },
      'b.c': { $in: [1, null] },
      d: { $ne: null },
      e: { $eq: null },
      $and: [{ d: { $ne: 'x' } }],
    });
    expect(mongoFilter(parseFilter({ o: { k: 1 }, r: { $gte: 'a', $lt: 'b' } }))).toEqual({ o: { $eq: { k: 1 } }, r: { $gte: 'a', $lt: 'b' } });
    expect(mongoFilter(parseFilter({}))).toEqual({});
  });

  it('gives upserts a string _id unless the filter fixes one', () => {
    const u = parseUpdate({ $set: { a: 1 } });
    const noTtl = new Set<string>();
    const upsert = mongoUpdate(u, { upsert: true, equality: equalityFields(parseFilter({ k: 1 })), ttlFields: noTtl });
    expect(upsert).toEqual({ $set: { a: 1 }, $setOnInsert: { _id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(mongoUpdate(u, { upsert: true, equality: equalityFields(parseFilter({ _id: 'x' })), ttlFields: noTtl })).toEqual({ $set: { a: 1 } });
    expect(mongoUpdate(parseUpdate({ $unset: { b: true }, $inc: { n: 2 } }), { upsert: false, equality: new Map(), ttlFields: noTtl })).toEqual({
      $unset: { b: '' },
      $inc: { n: 2 },
    });
  });

  it('keeps TTL shadows in step with $set, $unset, $setOnInsert and upsert equality', () => {
    const ttlFields = new Set(['exp']);
    const plain = { upsert: false, equality: new Map(), ttlFields };
    expect(mongoUpdate(parseUpdate({ $set: { exp: AT } }), plain)).toEqual({ $set: { exp: AT, _ttl_exp: new Date(AT) } });
    expect(mongoUpdate(parseUpdate({ $set: { exp: 'soon' } }), plain)).toEqual({ $set: { exp: 'soon' }, $unset: { _ttl_exp: '' } });
    expect(mongoUpdate(parseUpdate({ $unset: { exp: true } }), plain)).toEqual({ $unset: { exp: '', _ttl_exp: '' } });
    expect(mongoUpdate(parseUpdate({ $set: { other: 1 } }), plain)).toEqual({ $set: { other: 1 } });
    const onInsert = mongoUpdate(parseUpdate({ $setOnInsert: { exp: AT } }), { ...plain, upsert: true, equality: new Map([['_id', 'x']]) });
    expect(onInsert).toEqual({ $setOnInsert: { exp: AT, _ttl_exp: new Date(AT) } });
    const fromFilter = mongoUpdate(parseUpdate({ $set: { v: 1 } }), { upsert: true, equality: equalityFields(parseFilter({ _id: 'x', exp: AT })), ttlFields });
    expect(fromFilter).toEqual({ $set: { v: 1 }, $setOnInsert: { _ttl_exp: new Date(AT) } });
  });

  it('adds shadows on insert and strips them on read', () => {
    expect(withShadows({ _id: 'a', exp: AT, n: 1 }, new Set(['exp', 'missing']))).toEqual({ _id: 'a', exp: AT, n: 1, _ttl_exp: new Date(AT) });
    expect(withShadows({ _id: 'a', exp: 5 }, new Set(['exp']))).toEqual({ _id: 'a', exp: 5 });
    expect(stripShadows({ _id: 'a', exp: AT, _ttl_exp: new Date(AT) })).toEqual({ _id: 'a', exp: AT });
    expect(stripShadows(null)).toBeNull();
    expect(shadowDate('nope')).toBeUndefined();
  });

  it('reads the database from the URI path', () => {
    expect(databaseFromUri('mongodb://u:p@h1:27017,h2/pw_prod?replicaSet=rs0')).toBe('pw_prod');
    expect(databaseFromUri('mongodb+srv://cluster.example.net/app')).toBe('app');
    expect(databaseFromUri('mongodb://localhost:27017/?tls=true')).toBeUndefined();
    expect(databaseFromUri('mongodb://localhost:27017')).toBeUndefined();
  });
});
