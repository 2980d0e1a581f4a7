/**
 * One collection of the SQLite adapter: a table `(_id TEXT PRIMARY KEY, doc TEXT)` holding
 * each document as JSON (with `_id` inside too). Every read-modify-write runs in one
 * synchronous IMMEDIATE transaction, so updates and findOneAndUpdate are atomic.
 */
import { sql } from 'kysely';
import type {
  Collection,
  Doc,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  SortSpec,
  Update,
  UpdateOptions,
} from '../port';
import {
  assertDocument,
  assertFieldPath,
  assertFindOptions,
  assertSort,
  equalityFields,
  parseFilter,
  parseUpdate,
  withId,
  type FieldFilter,
  type ParsedUpdate,
} from '../query';
import type { Sql, SqliteConnection } from './connection';
import { mapSqliteError } from './errors';
import { orderSql, pageSql, whereSql } from './filter';
import { applyUpdate, arrayPathsOf, collectArrayPaths, upsertBase } from './update';

type Obj = Record<string, unknown>;
type DocRow = { rid: number; doc: string };

/** Paths that have held an array per collection, persisted (see SqliteStore). */
export interface ArrayPathRegistry {
  of(collection: string): ReadonlySet<string>;
  note(collection: string, paths: readonly string[]): void;
}

export class SqliteCollection<T extends Doc = Doc> implements Collection<T> {
  readonly name: string;
  readonly #conn: SqliteConnection;
  readonly #arrays: ArrayPathRegistry;
  readonly #table: Sql;
  readonly #insertSql: Sql;

  /** Creates the table if needed. `name` must already be validated. */
  constructor(name: string, conn: SqliteConnection, arrays: ArrayPathRegistry) {
    this.name = name;
    this.#conn = conn;
    this.#arrays = arrays;
    this.#table = sql.id(name);
    this.#insertSql = sql`INSERT INTO ${this.#table} (_id, doc) VALUES (?, ?)`;
    conn.exec(sql`CREATE TABLE IF NOT EXISTS ${this.#table} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
  }

  /** Runs `fn` in a transaction, turning duplicate keys into ConflictError. */
  #tx<R>(fn: () => R): R {
    try {
      return this.#conn.tx(fn);
    } catch (err) {
      throw mapSqliteError(err, this.name);
    }
  }

  #where(filter: readonly FieldFilter[]): Sql {
    return whereSql(filter, this.#arrays.of(this.name));
  }

  #selectRows(filter: readonly FieldFilter[], sort: SortSpec | undefined, limit?: number): DocRow[] {
    const page = limit === undefined ? sql.raw('') : pageSql(undefined, limit);
    return this.#conn.all<DocRow>(
      sql`SELECT rowid AS rid, doc FROM ${this.#table} WHERE ${this.#where(filter)}${orderSql(sort)}${page}`,
    );
  }

  #insert(doc: Obj): void {
    this.#insertAll([doc]);
  }

  /**
   * Inserts documents (inside the caller's transaction): their array paths noted once for the
   * batch, then one reused prepared INSERT per document, each serialised once.
   */
  #insertAll(docs: readonly Obj[]): void {
    const paths = new Set<string>();
    for (const doc of docs) collectArrayPaths(doc, '', paths);
    this.#arrays.note(this.name, [...paths]);
    this.#conn.runEach(this.#insertSql, docs.map((doc) => [doc._id, JSON.stringify(doc)]));
  }

  #replace(rid: number, doc: Obj): void {
    this.#arrays.note(this.name, arrayPathsOf(doc));
    this.#conn.run(sql`UPDATE ${this.#table} SET doc = ${JSON.stringify(doc)} WHERE rowid = ${rid}`);
  }

  /** Updates the first match or upserts; returns the documents before and after (null if none). */
  #updateFirst(filter: Filter, update: Update, upsert: boolean, sort?: SortSpec) {
    const parsed = parseFilter(filter);
    const upd: ParsedUpdate = parseUpdate(update);
    assertSort(sort);
    return this.#tx(() => {
      const [row] = this.#selectRows(parsed, sort, 1);
      if (row) {
        const after = applyUpdate(JSON.parse(row.doc) as Obj, upd, false);
        this.#replace(row.rid, after);
        return { before: JSON.parse(row.doc) as T, after: after as T, upserted: false };
      }
      if (!upsert) return { before: null, after: null, upserted: false };
      const inserted = applyUpdate(upsertBase(equalityFields(parsed)), upd, true);
      this.#insert(inserted);
      return { before: null, after: inserted as T, upserted: true };
    });
  }

  /** The SELECT behind `find` (exposed for SqliteStore.explainFind). */
  findSql(filter: Filter, options: FindOptions = {}): Sql {
    assertFindOptions(options);
    const where = this.#where(parseFilter(filter));
    return sql`SELECT doc FROM ${this.#table} WHERE ${where}${orderSql(options.sort)}${pageSql(options.skip, options.limit)}`;
  }

  async insertOne(doc: T): Promise<T & { _id: string }> {
    assertDocument(doc);
    const stored = withId(doc);
    this.#tx(() => this.#insert(stored));
    return stored;
  }

  async insertMany(docs: readonly T[]): Promise<void> {
    docs.forEach(assertDocument);
    const stored = docs.map(withId);
    if (stored.length > 0) this.#tx(() => this.#insertAll(stored));
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    const [doc] = await this.find(filter, { sort: options.sort, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const q = this.findSql(filter, options);
    if (options.limit === 0) return []; // MongoDB reads limit 0 as "no limit"; the port does not.
    return this.#conn.all<{ doc: string }>(q).map((r) => JSON.parse(r.doc) as T);
  }

  async count(filter: Filter): Promise<number> {
    const where = this.#where(parseFilter(filter));
    return Number(this.#conn.get<{ n: number }>(sql`SELECT count(*) AS n FROM ${this.#table} WHERE ${where}`)?.n ?? 0);
  }

  /** Distinct values (null included, absent excluded, arrays whole); order unspecified. */
  async distinct(path: string, filter: Filter): Promise<unknown[]> {
    assertFieldPath(path);
    const where = this.#where(parseFilter(filter));
    const jsonPath = sql.lit(`$.${path}`);
    const rows = this.#conn.all<{ v: string }>(
      sql`SELECT DISTINCT doc -> ${jsonPath} AS v FROM ${this.#table}
          WHERE ${where} AND json_type(doc, ${jsonPath}) IS NOT NULL`,
    );
    return rows.map((r) => JSON.parse(r.v) as unknown);
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}) {
    const r = this.#updateFirst(filter, update, options.upsert === true);
    return { matched: r.before ? 1 : 0, upserted: r.upserted };
  }

  async updateMany(filter: Filter, update: Update): Promise<{ matched: number }> {
    const parsed = parseFilter(filter);
    const upd = parseUpdate(update);
    return this.#tx(() => {
      const rows = this.#selectRows(parsed, undefined);
      for (const row of rows) this.#replace(row.rid, applyUpdate(JSON.parse(row.doc) as Obj, upd, false));
      return { matched: rows.length };
    });
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<T | null> {
    const r = this.#updateFirst(filter, update, options.upsert === true, options.sort);
    return options.returnDocument === 'before' ? r.before : r.after;
  }

  async deleteOne(filter: Filter): Promise<number> {
    const where = this.#where(parseFilter(filter));
    const t = this.#table;
    return this.#conn.run(sql`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE ${where} LIMIT 1)`);
  }

  async deleteMany(filter: Filter): Promise<number> {
    const where = this.#where(parseFilter(filter));
    return this.#conn.run(sql`DELETE FROM ${this.#table} WHERE ${where}`);
  }
}
