/**
 * The `sqlite` backend (DESIGN.md "Storage"): one better-sqlite3 connection, one table per
 * collection, a real column per indexed field path (columns.ts) with the indexes on those
 * columns, and two bookkeeping tables:
 * - `_planwarden_indexes` — declared index specs (to detect a changed spec and to find the
 *   TTL indexes for `purgeExpired`);
 * - `_planwarden_array_paths` — paths that have held an array per collection (filter.ts adds
 *   the json_each branch only for those). Reloaded when another connection commits.
 */
import { sql } from 'kysely';
import type { Collection, Doc, Filter, FindOptions, IndexSpec, Store, ThreadAccess } from '../port';
import { assertCollectionName, assertIndexSpecs, ttlCutoff } from '../query';
import { type ArrayPathRegistry, SqliteCollection } from './collection';
import { columnName, HotColumns } from './columns';
import { SqliteConnection, type WalCheckpoints } from './connection';
import { mapSqliteError } from './errors';
import { extract, type SqlText } from './filter';
import { createIndexDdl, dropIndexDdl, nullDuplicatesSql } from './indexes';
import { schemaIsCurrent } from './schema-current';
import { ConflictError } from '../../core/errors';

const META_DDL = [
  sql`CREATE TABLE IF NOT EXISTS _planwarden_indexes (
    collection TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, PRIMARY KEY (collection, name)) WITHOUT ROWID`,
  sql`CREATE TABLE IF NOT EXISTS _planwarden_array_paths (
    collection TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (collection, path)) WITHOUT ROWID`,
];

class ArrayPaths implements ArrayPathRegistry {
  readonly #conn: SqliteConnection;
  #paths = new Map<string, Set<string>>();

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
    this.#load();
  }

  #load(): void {
    this.#paths = new Map();
    const rows = this.#conn.all<{ collection: string; path: string }>(sql`SELECT collection, path FROM _planwarden_array_paths`);
    for (const r of rows) this.#set(r.collection).add(r.path);
  }

  #set(collection: string): Set<string> {
    let s = this.#paths.get(collection);
    if (!s) this.#paths.set(collection, (s = new Set()));
    return s;
  }

  of(collection: string): ReadonlySet<string> {
    if (this.#conn.changedElsewhere()) this.#load();
    return this.#set(collection);
  }

  note(collection: string, paths: readonly string[]): void {
    const known = this.#set(collection);
    for (const path of paths) {
      if (known.has(path)) continue;
      // Inside the caller's transaction; a rollback only leaves a harmless extra path in memory.
      this.#conn.run(sql`INSERT OR IGNORE INTO _planwarden_array_paths (collection, path) VALUES (${collection}, ${path})`);
      known.add(path);
    }
  }
}

/**
 * The spec as recorded in `_planwarden_indexes`. `on: 'columns'` marks an index built on hot
 * columns: a database written before hot columns has its indexes recorded without it (they were
 * `json_extract` expression indexes), so `ensureIndexes` rebuilds each of them once, on columns.
 */
function normalizedSpec(spec: IndexSpec): string {
  return JSON.stringify({ keys: spec.keys, unique: spec.unique === true, ttl: spec.expireAfterSeconds ?? null, on: 'columns' });
}

export class SqliteStore implements Store {
  readonly backend: 'sqlite' | 'memory';
  readonly threadAccess?: ThreadAccess;
  readonly #conn: SqliteConnection;
  readonly #arrays: ArrayPaths;
  readonly #columns: HotColumns;
  readonly #collections = new Map<string, SqliteCollection<Doc>>();

  /**
   * Opens (creating if needed) the database at `file`, or a private in-memory one for
   * `:memory:`. `backend` is the name reported by `Store.backend`. `options.walCheckpoints`:
   * see SqliteConnection (`inline` for a connection opened in a worker thread).
   */
  constructor(file: string, backend: 'sqlite' | 'memory' = 'sqlite', options: { walCheckpoints?: WalCheckpoints } = {}) {
    this.backend = backend;
    if (file !== ':memory:') this.threadAccess = { backend: 'sqlite', file };
    this.#conn = new SqliteConnection(file, options.walCheckpoints);
    for (const ddl of META_DDL) this.#conn.exec(ddl);
    this.#arrays = new ArrayPaths(this.#conn);
    this.#columns = new HotColumns(this.#conn);
  }

  /** The collection `name` (created on first use). Throws Error on an invalid name. */
  collection<T extends Doc = Doc>(name: string): Collection<T> {
    assertCollectionName(name);
    let c = this.#collections.get(name);
    if (!c) this.#collections.set(name, (c = new SqliteCollection(name, this.#conn, this.#arrays, this.#columns)));
    return c as unknown as Collection<T>;
  }

  /**
   * Adds the hot columns of the indexed paths (back-filled from the documents), then creates
   * missing indexes on them; an index whose declared spec changed (or that predates the
   * columns) is dropped and recreated, all in one transaction. Throws ConflictError when a unique index meets existing duplicates
   * (absent/null keys count as equal, as on MongoDB).
   */
  async ensureIndexes(collection: string, indexes: readonly IndexSpec[]): Promise<void> {
    await this.ensureIndexesBatch(new Map([[collection, indexes]]));
  }

  /**
   * `ensureIndexes` for every collection of `schema` (collection → index specs) in one
   * transaction (engine/src/stores.ts ensureSchema: one commit instead of one per
   * collection on a fresh database). All or nothing: a failure (ConflictError on existing
   * duplicates, Error on an invalid name or spec) leaves the schema as it was.
   */
  async ensureIndexesBatch(schema: ReadonlyMap<string, readonly IndexSpec[]>): Promise<void> {
    let current = '';
    try {
      for (const [collection, indexes] of schema) {
        current = collection;
        assertCollectionName(collection);
        assertIndexSpecs(indexes);
      }
      if (schemaIsCurrent(this.#conn, schema, normalizedSpec)) return;
      this.#conn.tx(() => {
        for (const [collection, indexes] of schema) {
          current = collection;
          this.#createTable(collection, indexes);
          this.collection(collection);
          this.#ensureIndexesInTx(collection, indexes);
        }
      });
    } catch (err) {
      throw mapSqliteError(err, current);
    }
  }

  /**
   * A collection not yet created gets its table with the hot columns of `indexes` declared up
   * front: the same table `SqliteCollection` creates and `HotColumns.ensure` then widens, without
   * one ALTER TABLE per column (SQLite re-checks the whole schema on each, which made a fresh
   * database's ensureSchema quadratic in the number of tables). An existing table is left alone.
   */
  #createTable(collection: string, indexes: readonly IndexSpec[]): void {
    if (this.#collections.has(collection)) return;
    const paths = [...new Set(indexes.flatMap((spec) => Object.keys(spec.keys)))].filter((p) => p !== '_id');
    const columns = paths.map((p) => sql.raw(`, ${columnName(p)}`));
    this.#conn.exec(sql`CREATE TABLE IF NOT EXISTS ${sql.id(collection)} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL${sql.join(columns, sql.raw(''))})`);
  }

  /** One collection's columns and indexes, inside the caller's transaction. */
  #ensureIndexesInTx(collection: string, indexes: readonly IndexSpec[]): void {
    this.#columns.ensure(
      collection,
      indexes.flatMap((spec) => Object.keys(spec.keys)),
    );
    for (const spec of indexes) {
      const wanted = normalizedSpec(spec);
      const row = this.#conn.get<{ spec: string }>(sql`SELECT spec FROM _planwarden_indexes WHERE collection = ${collection} AND name = ${spec.name}`);
      const unchanged = row?.spec === wanted;
      if (row && !unchanged) {
        for (const q of dropIndexDdl(collection, spec.name)) this.#conn.exec(q);
      }
      if (spec.unique && !unchanged && this.#conn.get(nullDuplicatesSql(collection, spec))) {
        throw new ConflictError(`Duplicate key in ${collection}`);
      }
      for (const q of createIndexDdl(collection, spec)) this.#conn.exec(q); // IF NOT EXISTS: a no-op when built
      if (unchanged) continue;
      this.#conn.run(sql`INSERT INTO _planwarden_indexes (collection, name, spec) VALUES (${collection}, ${spec.name}, ${wanted})
        ON CONFLICT (collection, name) DO UPDATE SET spec = excluded.spec`);
    }
  }

  /**
   * Deletes documents whose TTL field (an ISO string) sorts before `now - expireAfterSeconds`
   * for every TTL index; returns how many. Non-string values never expire.
   */
  async purgeExpired(now: Date = new Date()): Promise<number> {
    const rows = this.#conn.all<{ collection: string; spec: string }>(sql`SELECT collection, spec FROM _planwarden_indexes`);
    let deleted = 0;
    for (const row of rows) {
      const spec = JSON.parse(row.spec) as { keys: Record<string, number>; ttl: number | null };
      if (spec.ttl === null) continue;
      const [field] = Object.keys(spec.keys);
      const cutoff = ttlCutoff(now, spec.ttl).toISOString();
      deleted += this.#conn.run(sql`DELETE FROM ${sql.id(row.collection)}
        WHERE ${extract(field)} < ${cutoff} AND json_type(doc, ${sql.lit(`$.${field}`)}) = 'text'`);
    }
    return deleted;
  }

  /** SQLite's query plan for `find(filter, options)` (one line per step), for diagnostics and tests. */
  explainFind(collection: string, filter: Filter, options?: FindOptions): string[] {
    const c = this.collection(collection) as unknown as SqliteCollection<Doc>;
    return this.#explain(c.findSql(filter, options));
  }

  /**
   * SQLite's query plan for `count(filter)`. `USING COVERING INDEX` shows the filter is
   * answered from an index alone, without reading any document.
   */
  explainCount(collection: string, filter: Filter): string[] {
    const c = this.collection(collection) as unknown as SqliteCollection<Doc>;
    return this.#explain(c.countSql(filter));
  }

  #explain(q: SqlText): string[] {
    const rows = this.#conn.allText<{ detail: string }>(`EXPLAIN QUERY PLAN ${q.sql}`, q.params);
    return rows.map((r) => r.detail);
  }

  /** SqliteConnection.checkpointIfLarge: copies a large WAL into the database now, on this thread. */
  checkpointIfLarge(): boolean {
    return this.#conn.checkpointIfLarge();
  }

  async close(): Promise<void> {
    await this.#conn.close();
  }
}
