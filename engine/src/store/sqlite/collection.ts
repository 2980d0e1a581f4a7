/**
 * One collection of the SQLite adapter: a table `(_id TEXT PRIMARY KEY, doc TEXT, ...)` holding
 * each document as JSON (with `_id` inside too), plus the hot columns of its indexed paths
 * (columns.ts), written beside the document on every insert and update. Every read-modify-write runs in one
 * synchronous IMMEDIATE transaction, so updates and findOneAndUpdate are atomic.
 */
import { sql } from 'kysely';
import type { Collection, Doc, Filter, FindOneAndUpdateOptions, FindOptions, SortSpec, Update, UpdateOneOp, UpdateOptions } from '../port';
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
import { columnName, columnValue, type HotColumns } from './columns';
import type { Sql, SqliteConnection } from './connection';
import { mapSqliteError } from './errors';
import { ConflictError } from '../../core/errors';
import { needsArrayPaths, orderSql, pageSql, whereSql, type SqlText } from './filter';
import { applyUpdate, arrayPathsOf, collectArrayPaths, upsertBase } from './update';

type Obj = Record<string, unknown>;
type DocRow = { rid: number; doc: string };
const NO_PATHS: ReadonlySet<string> = new Set();

/** Parses stored documents (a plain loop: no per-row closure, no reviver argument). */
function parseDocs<T>(texts: readonly string[]): T[] {
  const out = new Array<T>(texts.length);
  for (let i = 0; i < texts.length; i += 1) out[i] = JSON.parse(texts[i]) as T;
  return out;
}

/** Paths that have held an array per collection, persisted (see SqliteStore). */
export interface ArrayPathRegistry {
  of(collection: string): ReadonlySet<string>;
  note(collection: string, paths: readonly string[]): void;
}

export class SqliteCollection<T extends Doc = Doc> implements Collection<T> {
  readonly name: string;
  readonly #conn: SqliteConnection;
  readonly #arrays: ArrayPathRegistry;
  readonly #columns: HotColumns;
  readonly #table: Sql;
  /** The quoted table name for SQL text (`name` is validated: `[a-z][a-z0-9_]*`). */
  readonly #from: string;
  /** INSERT and UPDATE texts per column set (the set changes only with the schema). */
  #writeSql: { columns: ReadonlySet<string>; insert: string; replace: string } | null = null;

  /** Creates the table if needed. `name` must already be validated. */
  constructor(name: string, conn: SqliteConnection, arrays: ArrayPathRegistry, columns: HotColumns) {
    this.name = name;
    this.#conn = conn;
    this.#arrays = arrays;
    this.#columns = columns;
    this.#table = sql.id(name);
    this.#from = `"${name}"`;
    conn.exec(sql`CREATE TABLE IF NOT EXISTS ${this.#table} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
  }

  /**
   * Runs `fn` in a write transaction (SqliteConnection.write: waits for another connection's
   * write lock without blocking the thread), turning duplicate keys into ConflictError.
   */
  async #tx<R>(fn: () => R): Promise<R> {
    try {
      return await this.#conn.write(fn);
    } catch (err) {
      throw mapSqliteError(err, this.name);
    }
  }

  /**
   * The WHERE text of `filter`, its parameters appended to `params`. The array-path registry
   * (and its cross-connection freshness check) is consulted only when a field condition needs it.
   */
  #where(filter: readonly FieldFilter[], params: unknown[], columns: ReadonlySet<string> = this.#columns.of(this.name)): string {
    const arrays = needsArrayPaths(filter) ? this.#arrays.of(this.name) : NO_PATHS;
    return whereSql(filter, arrays, params, columns);
  }

  /** The write statements for the table's current columns (checked inside the caller's transaction). */
  #writes(): { columns: ReadonlySet<string>; insert: string; replace: string } {
    const columns = this.#columns.of(this.name);
    if (this.#writeSql?.columns !== columns) {
      const names = [...columns].map(columnName);
      this.#writeSql = {
        columns,
        insert: `INSERT INTO ${this.#from} (_id, doc${names.map((n) => `, ${n}`).join('')}) VALUES (?, ?${', ?'.repeat(names.length)})`,
        replace: `UPDATE ${this.#from} SET doc = ?${names.map((n) => `, ${n} = ?`).join('')} WHERE rowid = ?`,
      };
    }
    return this.#writeSql;
  }

  /** The document's JSON text followed by its hot-column values, in column order. */
  #rowValues(doc: Obj, columns: ReadonlySet<string>): unknown[] {
    const values: unknown[] = [JSON.stringify(doc)];
    for (const path of columns) values.push(columnValue(doc, path));
    return values;
  }

  #selectRows(filter: readonly FieldFilter[], sort: SortSpec | undefined, limit?: number): DocRow[] {
    const params: unknown[] = [];
    const where = this.#where(filter, params);
    const page = limit === undefined ? '' : pageSql(undefined, limit, params);
    const order = orderSql(sort, this.#columns.of(this.name));
    return this.#conn.allText<DocRow>(`SELECT rowid AS rid, doc FROM ${this.#from} WHERE ${where}${order}${page}`, params);
  }

  #insert(doc: Obj): void {
    this.#insertAll([doc]);
  }

  /**
   * Inserts documents (inside the caller's transaction): their array paths noted once for the
   * batch, then one reused prepared INSERT per document, each serialised once, with its hot
   * column values.
   */
  #insertAll(docs: readonly Obj[]): void {
    const paths = new Set<string>();
    for (const doc of docs) collectArrayPaths(doc, '', paths);
    this.#arrays.note(this.name, [...paths]);
    const { columns, insert } = this.#writes();
    const unique = this.#columns.uniqueKeys(this.name);
    for (const doc of docs) {
      if (unique.length > 0) this.#assertNullKeysFree(doc, unique, null);
      this.#conn.runText(insert, [doc._id, ...this.#rowValues(doc, columns)]);
    }
  }

  #replace(rid: number, doc: Obj): void {
    this.#arrays.note(this.name, arrayPathsOf(doc));
    const { columns, replace } = this.#writes();
    const unique = this.#columns.uniqueKeys(this.name);
    if (unique.length > 0) this.#assertNullKeysFree(doc, unique, rid);
    this.#conn.runText(replace, [...this.#rowValues(doc, columns), rid]);
  }

  /**
   * MongoDB's unique-index semantics for the keys SQLite's UNIQUE lets through (indexes.ts): when
   * `doc` has an absent or null key of a unique index, no other document (`rid`: the row being
   * replaced) may hold the same key, NULLs included. Throws ConflictError (inside the caller's
   * transaction, which then rolls back). A key without a NULL is left to the UNIQUE index.
   */
  #assertNullKeysFree(doc: Obj, unique: readonly (readonly string[])[], rid: number | null): void {
    for (const keys of unique) {
      const values = keys.map((path) => (path === '_id' ? (doc._id as string) : columnValue(doc, path)));
      if (!values.includes(null)) continue;
      const same = keys.map((path) => `${path === '_id' ? '_id' : columnName(path)} IS ?`).join(' AND ');
      const params: unknown[] = rid === null ? values : [...values, rid];
      const hit = this.#conn.valueText(`SELECT 1 FROM ${this.#from} WHERE ${same}${rid === null ? '' : ' AND rowid <> ?'} LIMIT 1`, params);
      if (hit !== undefined) throw new ConflictError(`Duplicate key in ${this.name}`);
    }
  }

  /**
   * Updates the first match in `sort` order or upserts, inside the caller's transaction; returns
   * the documents before and after (null if none). `before` is parsed only when `wantBefore`
   * (findOneAndUpdate's 'before'), else null; `matched` tells whether a document matched.
   */
  #updateFirstNow(parsed: readonly FieldFilter[], upd: ParsedUpdate, upsert: boolean, sort: SortSpec | undefined, wantBefore: boolean) {
    const [row] = this.#selectRows(parsed, sort, 1);
    if (row) {
      const after = applyUpdate(JSON.parse(row.doc) as Obj, upd, false);
      this.#replace(row.rid, after);
      return { matched: true, before: wantBefore ? (JSON.parse(row.doc) as T) : null, after: after as T, upserted: false };
    }
    if (!upsert) return { matched: false, before: null, after: null, upserted: false };
    const inserted = applyUpdate(upsertBase(equalityFields(parsed)), upd, true);
    this.#insert(inserted);
    return { matched: false, before: null, after: inserted as T, upserted: true };
  }

  /** The SELECT behind `find` (exposed for SqliteStore.explainFind). */
  findSql(filter: Filter, options: FindOptions = {}): SqlText {
    assertFindOptions(options);
    const parsed = parseFilter(filter);
    const params: unknown[] = [];
    const columns = this.#columns.forRead(this.name);
    const where = this.#where(parsed, params, columns);
    const text = `SELECT doc FROM ${this.#from} WHERE ${where}${orderSql(options.sort, columns)}${pageSql(options.skip, options.limit, params)}`;
    return { sql: text, params };
  }

  /** The SELECT behind `count` (exposed for SqliteStore.explainCount). */
  countSql(filter: Filter): SqlText {
    const params: unknown[] = [];
    const where = this.#where(parseFilter(filter), params, this.#columns.forRead(this.name));
    return { sql: `SELECT count(*) FROM ${this.#from} WHERE ${where}`, params };
  }

  async insertOne(doc: T): Promise<T & { _id: string }> {
    assertDocument(doc);
    const stored = withId(doc);
    await this.#tx(() => this.#insert(stored));
    return stored;
  }

  async insertMany(docs: readonly T[]): Promise<void> {
    docs.forEach(assertDocument);
    const stored = docs.map(withId);
    if (stored.length > 0) await this.#tx(() => this.#insertAll(stored));
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    const [doc] = await this.find(filter, { sort: options.sort, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return parseDocs<T>(await this.findRawJson(filter, options));
  }

  /** The stored JSON text of each match (port.ts): the `doc` column as written, never parsed here. */
  async findRawJson(filter: Filter, options: FindOptions = {}): Promise<string[]> {
    const q = this.findSql(filter, options);
    if (options.limit === 0) return []; // MongoDB reads limit 0 as "no limit"; the port does not.
    return this.#conn.pluckText<string>(q.sql, q.params);
  }

  async count(filter: Filter): Promise<number> {
    const q = this.countSql(filter);
    return Number(this.#conn.valueText<number>(q.sql, q.params) ?? 0);
  }

  /** Distinct values (null included, absent excluded, arrays whole); order unspecified. */
  async distinct(path: string, filter: Filter): Promise<unknown[]> {
    assertFieldPath(path);
    const params: unknown[] = [];
    const where = this.#where(parseFilter(filter), params);
    const jsonPath = `'$.${path}'`;
    const texts = this.#conn.pluckText<string>(
      `SELECT DISTINCT doc -> ${jsonPath} FROM ${this.#from} WHERE ${where} AND json_type(doc, ${jsonPath}) IS NOT NULL`,
      params,
    );
    return parseDocs<unknown>(texts);
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}) {
    const { matched, upserted } = await this.bulkUpdateOne([{ filter, update, upsert: options.upsert }]);
    return { matched, upserted: upserted > 0 };
  }

  async bulkUpdateOne(ops: readonly UpdateOneOp[]): Promise<{ matched: number; upserted: number }> {
    const parsed = ops.map((op) => ({ filter: parseFilter(op.filter), update: parseUpdate(op.update), upsert: op.upsert === true }));
    if (parsed.length === 0) return { matched: 0, upserted: 0 };
    return this.#tx(() => {
      let matched = 0;
      let upserted = 0;
      for (const op of parsed) {
        const r = this.#updateFirstNow(op.filter, op.update, op.upsert, undefined, false);
        if (r.matched) matched += 1;
        if (r.upserted) upserted += 1;
      }
      return { matched, upserted };
    });
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
    const parsed = parseFilter(filter);
    const upd = parseUpdate(update);
    assertSort(options.sort);
    const wantBefore = options.returnDocument === 'before';
    const r = await this.#tx(() => this.#updateFirstNow(parsed, upd, options.upsert === true, options.sort, wantBefore));
    return wantBefore ? r.before : r.after;
  }

  async deleteOne(filter: Filter): Promise<number> {
    const params: unknown[] = [];
    const where = this.#where(parseFilter(filter), params);
    const t = this.#from;
    return this.#tx(() => this.#conn.runText(`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE ${where} LIMIT 1)`, params));
  }

  async deleteMany(filter: Filter): Promise<number> {
    const params: unknown[] = [];
    const where = this.#where(parseFilter(filter), params);
    return this.#tx(() => this.#conn.runText(`DELETE FROM ${this.#from} WHERE ${where}`, params));
  }
}
