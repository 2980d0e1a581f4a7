/**
 * Port updates to MongoDB update documents. MongoDB applies the operators itself (atomically,
 * with the same semantics the SQLite adapter reproduces in JS); this adds what the port needs
 * on top:
 * - an upsert that has no `_id` equality in its filter gets `$setOnInsert._id` = a random
 *   UUID, so `_id` is a string on every backend (MongoDB would make an ObjectId);
 * - TTL shadow fields (indexes.ts) follow their field: `$set` of a TTL field sets or unsets
 *   its shadow, `$unset` unsets it, and an upsert setting it through `$setOnInsert` or a
 *   filter equality sets the shadow through `$setOnInsert`.
 */
import { randomUUID } from 'node:crypto';
import type { Document, UpdateFilter } from 'mongodb';
import type { JsonValue } from '../port';
import type { ParsedUpdate } from '../query';
import { shadowDate, shadowField } from './indexes';

export interface MongoUpdateContext {
  readonly upsert: boolean;
  /** Equality fields of the filter (what an upsert inserts). */
  readonly equality: ReadonlyMap<string, JsonValue>;
  readonly ttlFields: ReadonlySet<string>;
}

/** The MongoDB update document for a parsed port update. */
export function mongoUpdate(u: ParsedUpdate, ctx: MongoUpdateContext): UpdateFilter<Document> {
  const $setOnInsert: Document = Object.fromEntries(u.setOnInsert);
  const $set: Document = Object.fromEntries(u.set);
  const $unset: Document = Object.fromEntries(u.unset.map((p) => [p, '']));
  const $inc: Document = Object.fromEntries(u.inc);
  if (ctx.upsert && !ctx.equality.has('_id')) $setOnInsert._id = randomUUID();
  for (const field of ctx.ttlFields) {
    const shadow = shadowField(field);
    if (u.set.has(field)) {
      const d = shadowDate(u.set.get(field));
      if (d) $set[shadow] = d;
      else $unset[shadow] = '';
    } else if (u.unset.includes(field)) {
      $unset[shadow] = '';
    } else if (ctx.upsert) {
      const d = shadowDate(u.setOnInsert.has(field) ? u.setOnInsert.get(field) : ctx.equality.get(field));
      if (d) $setOnInsert[shadow] = d;
    }
  }
  const out: Document = {};
  for (const [op, fields] of Object.entries({ $setOnInsert, $set, $unset, $inc })) {
    if (Object.keys(fields).length > 0) out[op] = fields;
  }
  return out as UpdateFilter<Document>;
}
