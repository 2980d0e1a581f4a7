/**
 * One collection of the `docdb` adapter on the official driver. Inputs go through the same
 * validation as the SQLite adapter (query.ts); MongoDB applies the filters and operators
 * natively and atomically per document.
 */
import type { AnyBulkWriteOperation, Collection as MongoDriverCollection, Document, FindOptions as MongoFindOptions } from 'mongodb';
import type { Collection, Doc, Filter, FindOneAndUpdateOptions, FindOptions, Update, UpdateOneOp, UpdateOptions } from '../port';
import { assertDocument, assertFieldPath, assertFindOptions, assertSort, equalityFields, parseFilter, parseUpdate, withId } from '../query';
import { isDuplicateKey, mapMongoError } from './errors';
import { mongoFilter } from './filter';
import { stripShadows, withShadows } from './indexes';
import { mongoUpdate } from './update';

export class MongoCollection<T extends Doc = Doc> implements Collection<T> {
  readonly name: string;
  readonly #coll: MongoDriverCollection<Document>;
  readonly #ttlFields: () => Promise<ReadonlySet<string>>;

  /** `ttlFields` returns the collection's TTL fields (cached by MongoStore). */
  constructor(name: string, coll: MongoDriverCollection<Document>, ttlFields: () => Promise<ReadonlySet<string>>) {
    this.name = name;
    this.#coll = coll;
    this.#ttlFields = ttlFields;
  }

  async #guard<R>(op: () => Promise<R>): Promise<R> {
    try {
      return await op();
    } catch (err) {
      throw mapMongoError(err, this.name);
    }
  }

  async #update(filter: Filter, update: Update, upsert: boolean) {
    const parsed = parseFilter(filter);
    const upd = parseUpdate(update);
    const equality = upsert ? equalityFields(parsed) : new Map();
    const ttlFields = await this.#ttlFields();
    return { filter: mongoFilter(parsed), update: mongoUpdate(upd, { upsert, equality, ttlFields }) };
  }

  async insertOne(doc: T): Promise<T & { _id: string }> {
    assertDocument(doc);
    const stored = withId(doc);
    const ttl = await this.#ttlFields();
    await this.#guard(() => this.#coll.insertOne(withShadows(stored, ttl)));
    return stored;
  }

  /**
   * All or none: an ordered insert stops at the first duplicate, and the documents inserted
   * before it are deleted again before ConflictError is thrown. (Readers may glimpse them in
   * between; a transaction would need a replica set, which DocumentDB/FerretDB setups vary on.)
   */
  async insertMany(docs: readonly T[]): Promise<void> {
    docs.forEach(assertDocument);
    if (docs.length === 0) return;
    const stored = docs.map(withId);
    const ttl = await this.#ttlFields();
    try {
      await this.#coll.insertMany(
        stored.map((d) => withShadows(d, ttl)),
        { ordered: true },
      );
    } catch (err) {
      if (isDuplicateKey(err)) {
        const writeErrors = (err as { writeErrors?: { index: number } | { index: number }[] }).writeErrors;
        const first = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
        const inserted = stored.slice(0, first?.index ?? 0).map((d) => d._id);
        if (inserted.length > 0) await this.#coll.deleteMany({ _id: { $in: inserted } } as Document);
      }
      throw mapMongoError(err, this.name);
    }
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    const [doc] = await this.find(filter, { sort: options.sort, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const query = mongoFilter(parseFilter(filter));
    assertFindOptions(options);
    if (options.limit === 0) return []; // MongoDB reads limit 0 as "no limit"; the port does not.
    const opts: MongoFindOptions = {};
    if (options.sort && Object.keys(options.sort).length > 0) opts.sort = options.sort;
    if (options.skip) opts.skip = options.skip;
    if (options.limit !== undefined) opts.limit = options.limit;
    const docs = await this.#coll.find(query, opts).toArray();
    return docs.map((d) => stripShadows<T>(d) as T);
  }

  /** `find`'s documents serialised with JSON.stringify (port.ts; the driver hands back objects). */
  async findRawJson(filter: Filter, options: FindOptions = {}): Promise<string[]> {
    const docs = await this.find(filter, options);
    return docs.map((d) => JSON.stringify(d));
  }

  async count(filter: Filter): Promise<number> {
    return this.#coll.countDocuments(mongoFilter(parseFilter(filter)));
  }

  /**
   * Distinct values (null included, absent excluded, arrays whole — unlike MongoDB's own
   * `distinct`, which flattens arrays); order unspecified.
   */
  async distinct(path: string, filter: Filter): Promise<unknown[]> {
    assertFieldPath(path);
    const match = { $and: [mongoFilter(parseFilter(filter)), { [path]: { $exists: true } }] };
    const groups = await this.#coll.aggregate([{ $match: match }, { $group: { _id: `$${path}` } }]).toArray();
    return groups.map((g) => g._id as unknown);
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}) {
    const upsert = options.upsert === true;
    const q = await this.#update(filter, update, upsert);
    const r = await this.#guard(() => this.#coll.updateOne(q.filter, q.update, { upsert }));
    return { matched: r.matchedCount, upserted: r.upsertedCount > 0 };
  }

  async bulkUpdateOne(ops: readonly UpdateOneOp[]): Promise<{ matched: number; upserted: number }> {
    if (ops.length === 0) return { matched: 0, upserted: 0 };
    const writes: AnyBulkWriteOperation[] = [];
    for (const op of ops) {
      const upsert = op.upsert === true;
      const q = await this.#update(op.filter, op.update, upsert);
      writes.push({ updateOne: { filter: q.filter, update: q.update, upsert } });
    }
    const r = await this.#guard(() => this.#coll.bulkWrite(writes, { ordered: true }));
    return { matched: r.matchedCount, upserted: r.upsertedCount };
  }

  async updateMany(filter: Filter, update: Update): Promise<{ matched: number }> {
    const q = await this.#update(filter, update, false);
    const r = await this.#guard(() => this.#coll.updateMany(q.filter, q.update));
    return { matched: r.matchedCount };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<T | null> {
    assertSort(options.sort);
    const upsert = options.upsert === true;
    const q = await this.#update(filter, update, upsert);
    const doc = await this.#guard(() =>
      this.#coll.findOneAndUpdate(q.filter, q.update, {
        upsert,
        returnDocument: options.returnDocument ?? 'after',
        includeResultMetadata: false,
        ...(options.sort && Object.keys(options.sort).length > 0 ? { sort: options.sort } : {}),
      }),
    );
    return stripShadows<T>(doc);
  }

  async deleteOne(filter: Filter): Promise<number> {
    return (await this.#coll.deleteOne(mongoFilter(parseFilter(filter)))).deletedCount;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.#coll.deleteMany(mongoFilter(parseFilter(filter)))).deletedCount;
  }
}
