/**
 * Indexes for the MongoDB adapter, including TTL through shadow fields.
 *
 * MongoDB TTL indexes only expire BSON Dates, but port documents hold ISO strings. A TTL
 * field `f` (top-level, see assertIndexSpecs) therefore gets a shadow `_ttl_f` holding the
 * same instant as a Date; the TTL index is on the shadow. The adapter keeps shadows in step
 * on every write (update.ts) and strips them on every read. `_ttl_*` keys are reserved.
 */
import type { AnyBulkWriteOperation, Collection as MongoCollection, Document } from 'mongodb';
import type { IndexSpec } from '../port';
import { RESERVED_PREFIX } from '../query';

/** The shadow field of TTL field `field`. */
export function shadowField(field: string): string {
  return `${RESERVED_PREFIX}${field}`;
}

/** The Date a TTL field value stands for, or undefined (not a string, or not a date). */
export function shadowDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** A copy of `doc` with the shadow of every TTL field holding a date string. */
export function withShadows<D extends Record<string, unknown>>(doc: D, ttlFields: ReadonlySet<string>): Document {
  const out: Document = { ...doc };
  for (const f of ttlFields) {
    const d = shadowDate(doc[f]);
    if (d) out[shadowField(f)] = d;
  }
  return out;
}

/** Removes shadow fields (every top-level `_ttl_*` key) from a document read back. */
export function stripShadows<T>(doc: Document | null): T | null {
  if (!doc) return null;
  for (const key of Object.keys(doc)) if (key.startsWith(RESERVED_PREFIX)) delete doc[key];
  return doc as T;
}

/** TTL fields of a collection with their expireAfterSeconds, read from its indexes. */
export async function ttlIndexes(coll: MongoCollection<Document>): Promise<Map<string, number>> {
  let indexes: Document[];
  try {
    indexes = await coll.listIndexes().toArray();
  } catch (err) {
    if ((err as { code?: unknown }).code === 26) return new Map(); // NamespaceNotFound
    throw err;
  }
  const out = new Map<string, number>();
  for (const ix of indexes) {
    const keys = Object.keys(ix.key as Document);
    if (typeof ix.expireAfterSeconds === 'number' && keys.length === 1 && keys[0].startsWith(RESERVED_PREFIX)) {
      out.set(keys[0].slice(RESERVED_PREFIX.length), ix.expireAfterSeconds);
    }
  }
  return out;
}

function mongoKey(spec: IndexSpec): Document {
  if (spec.expireAfterSeconds === undefined) return { ...spec.keys };
  return { [shadowField(Object.keys(spec.keys)[0])]: 1 };
}

function sameIndex(existing: Document, spec: IndexSpec): boolean {
  return (
    JSON.stringify(existing.key) === JSON.stringify(mongoKey(spec)) &&
    (existing.unique === true) === (spec.unique === true) &&
    existing.expireAfterSeconds === spec.expireAfterSeconds
  );
}

/** Writes the shadow of `field` on documents that predate its TTL index. */
async function backfillShadows(coll: MongoCollection<Document>, field: string): Promise<void> {
  const shadow = shadowField(field);
  const cursor = coll.find({ [field]: { $type: 'string' }, [shadow]: { $exists: false } }, { projection: { [field]: 1 } });
  let batch: AnyBulkWriteOperation<Document>[] = [];
  for await (const doc of cursor) {
    const d = shadowDate(doc[field]);
    if (d) batch.push({ updateOne: { filter: { _id: doc._id, [field]: doc[field] }, update: { $set: { [shadow]: d } } } });
    if (batch.length >= 500) {
      await coll.bulkWrite(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length > 0) await coll.bulkWrite(batch, { ordered: false });
}

/**
 * Creates missing indexes; one whose spec changed (same name) is dropped and recreated. A new
 * TTL index backfills shadows of existing documents. Driver errors propagate (the caller maps
 * duplicate keys to ConflictError).
 */
export async function ensureMongoIndexes(coll: MongoCollection<Document>, specs: readonly IndexSpec[]): Promise<void> {
  const existing = new Map((await coll.listIndexes().toArray()).map((ix) => [ix.name as string, ix]));
  for (const spec of specs) {
    const current = existing.get(spec.name);
    if (current && sameIndex(current, spec)) continue;
    if (current) await coll.dropIndex(spec.name);
    const options: Document = { name: spec.name };
    if (spec.unique) options.unique = true;
    if (spec.expireAfterSeconds !== undefined) options.expireAfterSeconds = spec.expireAfterSeconds;
    await coll.createIndex(mongoKey(spec), options);
    if (spec.expireAfterSeconds !== undefined) await backfillShadows(coll, Object.keys(spec.keys)[0]);
  }
}
