/**
 * Hot fields as real columns (docs/decisions.md "SQLite hot columns"). Every field path that a declared index names (except
 * `_id`, already the primary-key column) gets a column of its own on the collection's table,
 * written by the adapter beside the document on every insert and update, and indexed instead of
 * a `json_extract` expression: writes no longer parse the document once per index expression
 * and per unique-index trigger, and reads compare the column directly.
 *
 * The column holds exactly what `json_extract(doc, '$.<path>')` returns (NULL for absent or
 * null, TEXT for strings, INTEGER/REAL for numbers, 1/0 for booleans, minified JSON text for
 * arrays and objects), so filter.ts's type-bracketing reasoning holds unchanged with the column
 * in place of the expression. Existing tables get their columns at `ensureIndexes`, back-filled
 * by SQLite's own `json_extract` in the same transaction.
 *
 * Several connections may share one file (replicas): the column set is re-read from the schema
 * whenever `PRAGMA schema_version` moved, and writes check it inside their transaction, so no
 * connection writes a row without a column another one has added.
 */
import { sql } from 'kysely';
import type { SqliteConnection } from './connection';

/**
 * The column of a field path: `"@<path>"`, an upper-case letter written `^<lower>` (SQLite
 * column names are case-insensitive, field paths are not). Paths are validated (query.ts:
 * `[A-Za-z0-9_.]`), so the quoted identifier needs no escaping.
 */
export function columnName(path: string): string {
  return `"@${path.replace(/[A-Z]/g, (c) => `^${c.toLowerCase()}`)}"`;
}

/** The field path of a table column named by columnName (without quotes), or null for `_id`, `doc` and others. */
export function pathOfColumn(name: string): string | null {
  if (!name.startsWith('@')) return null;
  return name.slice(1).replace(/\^([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** What `json_extract(doc, '$.<path>')` returns for `doc`, as a bindable value. */
export function columnValue(doc: Record<string, unknown>, path: string): string | number | null {
  let v: unknown = doc;
  for (const key of path.split('.')) {
    // '$.a.b' reads object members only: an array (or a scalar) on the way yields NULL.
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
    v = (v as Record<string, unknown>)[key];
  }
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return JSON.stringify(v); // the document is JSON.stringify'd too: the same minified text
}

/** How long forRead trusts the column sets it read (ms): the staleness another connection's new column may see. */
const READ_RECHECK_MS = 1000;

/** The field paths with a column, per collection, kept in step with the database schema. */
export class HotColumns {
  readonly #conn: SqliteConnection;
  readonly #byTable = new Map<string, ReadonlySet<string>>();
  readonly #uniqueByTable = new Map<string, readonly (readonly string[])[]>();
  #schemaVersion = -1;
  /** When forRead last asked SQLite for the schema version (epoch ms). */
  #checkedAt = 0;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  /** Paths with a column in `table`, in column order (re-read after any schema change). */
  of(table: string): ReadonlySet<string> {
    const version = this.#conn.schemaVersion();
    if (version !== this.#schemaVersion) {
      this.#byTable.clear();
      this.#uniqueByTable.clear();
      this.#schemaVersion = version;
    }
    let paths = this.#byTable.get(table);
    if (!paths) {
      const cols = this.#conn.all<{ name: string }>(sql`SELECT name FROM pragma_table_info(${table})`);
      paths = new Set(cols.map((c) => pathOfColumn(c.name)).filter((p): p is string => p !== null));
      this.#byTable.set(table, paths);
    }
    return paths;
  }

  /**
   * The key paths of each unique index declared on `table` (`_planwarden_indexes`), re-read
   * after any schema change like `of` (an index is created or dropped with DDL, in the same
   * transaction as its record). For the adapter's own null-key check (indexes.ts).
   */
  uniqueKeys(table: string): readonly (readonly string[])[] {
    this.of(table);
    let keys = this.#uniqueByTable.get(table);
    if (!keys) {
      const rows = this.#conn.all<{ spec: string }>(sql`SELECT spec FROM _planwarden_indexes WHERE collection = ${table}`);
      keys = rows
        .map((r) => JSON.parse(r.spec) as { keys: Record<string, number>; unique: boolean })
        .filter((spec) => spec.unique)
        .map((spec) => Object.keys(spec.keys));
      this.#uniqueByTable.set(table, keys);
    }
    return keys;
  }

  /**
   * The paths with a column in `table` as read at most READ_RECHECK_MS ago, without asking
   * SQLite whether the schema moved on every call (`of` costs a PRAGMA): for reads only. A
   * column is never dropped, and a path without a known column is read through `json_extract`,
   * which gives the column's value, so a set missing a column another connection has just added
   * answers the same rows (only without that column's index, for at most READ_RECHECK_MS).
   * Writes use `of`: they must fill every column.
   */
  forRead(table: string): ReadonlySet<string> {
    const now = Date.now();
    const cached = this.#schemaVersion !== -1 && now - this.#checkedAt < READ_RECHECK_MS ? this.#byTable.get(table) : undefined;
    if (cached) return cached;
    this.#checkedAt = now;
    return this.of(table);
  }

  /**
   * Adds a column for each of `paths` that `table` lacks, back-filled from the documents
   * (inside the caller's transaction).
   */
  ensure(table: string, paths: readonly string[]): void {
    const have = new Set(this.of(table));
    for (const path of paths) {
      if (path === '_id' || have.has(path)) continue;
      const col = sql.raw(columnName(path));
      this.#conn.exec(sql`ALTER TABLE ${sql.id(table)} ADD COLUMN ${col}`);
      this.#conn.run(sql`UPDATE ${sql.id(table)} SET ${col} = json_extract(doc, ${sql.lit(`$.${path}`)})`);
      have.add(path);
      this.#schemaVersion = -1; // this connection moved the schema: the next read re-reads it
    }
  }
}
