/**
 * Offline copy of every collection from one store to another through the storage port
 * (beyond the spec: `npm run admin -- migrate --to <mongodb-uri>`), so a team moving from the
 * SQLite file to MongoDB keeps its history. The same code runs for any pair of adapters.
 */
import { ConflictError } from '../core/errors';
import type { Doc, Filter, IndexSpec, Store } from './port';

/** What one collection's copy did. */
export interface CollectionCopy {
  readonly collection: string;
  /** Documents read from the source. */
  readonly source: number;
  readonly inserted: number;
  /** Present in the target under the same `_id` but different: overwritten with the source's. */
  readonly replaced: number;
  readonly unchanged: number;
  /** Target rows of another `_id` holding a source row's unique key (e.g. seeded at a start): removed for the source's. */
  readonly displaced: number;
  /** Documents re-read from the target and found equal to the source. */
  readonly verified: number;
}

type Row = Doc & Record<string, unknown> & { _id: string };

/** JSON with object keys sorted at every depth: equal documents compare equal on every backend. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function valueAt(doc: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), doc);
}

/**
 * Copies `collections` (name → its declared indexes) from `source` to `target`, in `_id` order,
 * `batchSize` documents at a time. Idempotent and resumable: a document already equal in the
 * target is left alone, a different one is overwritten, a missing one inserted; target rows the
 * source lacks are kept. Every batch is re-read from the target and compared with the source.
 * Calls `progress` once per collection. Does not create indexes: run `ensureSchema(target)` first.
 * Throws Error when verification finds a difference; adapter errors propagate.
 */
export async function copyCollections(
  source: Store,
  target: Store,
  collections: ReadonlyMap<string, readonly IndexSpec[]>,
  progress: (copy: CollectionCopy) => void,
  batchSize = 500,
): Promise<CollectionCopy[]> {
  const results: CollectionCopy[] = [];
  for (const [name, indexes] of collections) {
    const from = source.collection<Row>(name);
    const to = target.collection<Row>(name);
    const uniques = indexes.filter((i) => i.unique);
    const counts = { source: 0, inserted: 0, replaced: 0, unchanged: 0, displaced: 0, verified: 0 };
    let after: string | null = null;
    for (;;) {
      const batch: Row[] = await from.find(after === null ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: batchSize });
      if (batch.length === 0) break;
      after = batch[batch.length - 1]._id;
      counts.source += batch.length;
      const ids = batch.map((d) => d._id);
      const existing = new Map((await to.find({ _id: { $in: ids } })).map((d) => [d._id, d]));
      for (const doc of batch) {
        const current = existing.get(doc._id);
        if (current && canonical(current) === canonical(doc)) {
          counts.unchanged += 1;
        } else if (current) {
          const unset = Object.fromEntries(
            Object.keys(current)
              .filter((k) => !(k in doc))
              .map((k) => [k, true as const]),
          );
          const { _id, ...fields } = doc;
          await to.updateOne({ _id }, { $set: fields, ...(Object.keys(unset).length ? { $unset: unset } : {}) });
          counts.replaced += 1;
        } else {
          counts.displaced += await insertDisplacing(to, doc, uniques);
          counts.inserted += 1;
        }
      }
      const reread = new Map((await to.find({ _id: { $in: ids } })).map((d) => [d._id, canonical(d)]));
      for (const doc of batch) {
        if (reread.get(doc._id) !== canonical(doc)) throw new Error(`${name}: document ${doc._id} differs in the target after copying`);
        counts.verified += 1;
      }
    }
    const copy = { collection: name, ...counts };
    progress(copy);
    results.push(copy);
  }
  return results;
}

/** Inserts `doc`; on a unique-key clash, removes the target rows holding its unique keys under another `_id` and retries once. */
async function insertDisplacing(to: ReturnType<Store['collection']>, doc: Row, uniques: readonly IndexSpec[]): Promise<number> {
  try {
    await to.insertOne(doc);
    return 0;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
  let displaced = 0;
  for (const index of uniques) {
    const filter: Filter = { _id: { $ne: doc._id } };
    for (const path of Object.keys(index.keys)) {
      const value = valueAt(doc, path);
      filter[path] = value === undefined || value === null ? { $exists: false } : value;
    }
    displaced += await to.deleteMany(filter);
  }
  await to.insertOne(doc);
  return displaced;
}
