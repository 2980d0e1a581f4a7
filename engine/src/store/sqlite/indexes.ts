/**
 * Index DDL for the SQLite adapter: indexes on the hot columns of the key paths (columns.ts;
 * the same columns filter.ts reads, so the planner uses them). Every key path but `_id` must
 * already have its column (SqliteStore.ensureIndexes adds them first).
 *
 * A unique index follows MongoDB: an absent or null key is a value like any other, so two
 * documents lacking the key collide. SQLite's UNIQUE treats NULLs as distinct, so unique
 * indexes get a pair of triggers that RAISE(ABORT) (SQLITE_CONSTRAINT_TRIGGER, mapped to
 * ConflictError) when a write would duplicate a key containing a NULL. Their WHEN clause reads
 * the new row's columns only, so a write with no NULL key costs no document parse.
 */
import { sql } from 'kysely';
import type { IndexSpec } from '../port';
import type { Sql } from './connection';
import { columnName } from './columns';

/** SQLite index names are global to the database: prefix with the collection. */
export function sqliteIndexName(collection: string, index: string): string {
  return `${collection}__${index}`;
}

/** The key's column, on the table itself or (`row` = 'NEW') on the row being written. */
function key(path: string, row?: 'NEW'): Sql {
  const col = path === '_id' ? '_id' : columnName(path);
  return sql.raw(row ? `${row}.${col}` : col);
}

function nullSafeDuplicate(table: string, spec: IndexSpec, exceptSelf: boolean): Sql {
  const keys = Object.keys(spec.keys);
  const same = keys.map((k) => sql`${key(k)} IS ${key(k, 'NEW')}`);
  const self = exceptSelf ? sql` AND rowid <> NEW.rowid` : sql.raw('');
  return sql`EXISTS (SELECT 1 FROM ${sql.id(table)} WHERE ${sql.join(same, sql.raw(' AND '))}${self})`;
}

function anyNewKeyNull(spec: IndexSpec): Sql {
  const nulls = Object.keys(spec.keys).map((k) => sql`${key(k, 'NEW')} IS NULL`);
  return sql.join(nulls, sql.raw(' OR '));
}

/** Statements creating the index (and, when unique, its null-key triggers); idempotent. */
export function createIndexDdl(table: string, spec: IndexSpec): Sql[] {
  const name = sqliteIndexName(table, spec.name);
  const cols = Object.entries(spec.keys).map(([k, dir]) => sql`${key(k)} ${sql.raw(dir === -1 ? 'DESC' : 'ASC')}`);
  const unique = spec.unique ? sql.raw('UNIQUE ') : sql.raw('');
  const out = [sql`CREATE ${unique}INDEX IF NOT EXISTS ${sql.id(name)} ON ${sql.id(table)} (${sql.join(cols)})`];
  if (!spec.unique) return out;
  const raise = sql.lit(`duplicate key in ${table}.${spec.name}`);
  for (const [suffix, event, exceptSelf] of [['ins', 'INSERT', false], ['upd', 'UPDATE', true]] as const) {
    out.push(sql`CREATE TRIGGER IF NOT EXISTS ${sql.id(`${name}__${suffix}`)} BEFORE ${sql.raw(event)} ON ${sql.id(table)}
      WHEN ${anyNewKeyNull(spec)}
      BEGIN SELECT RAISE(ABORT, ${raise}) WHERE ${nullSafeDuplicate(table, spec, exceptSelf)}; END`);
  }
  return out;
}

/** Statements dropping the index and its triggers; idempotent. */
export function dropIndexDdl(table: string, index: string): Sql[] {
  const name = sqliteIndexName(table, index);
  return [
    sql`DROP TRIGGER IF EXISTS ${sql.id(`${name}__ins`)}`,
    sql`DROP TRIGGER IF EXISTS ${sql.id(`${name}__upd`)}`,
    sql`DROP INDEX IF EXISTS ${sql.id(name)}`,
  ];
}

/**
 * A query returning a row when existing documents already hold two equal keys containing a
 * NULL (which the UNIQUE index itself would accept): creating the unique index must fail then,
 * as it does on MongoDB.
 */
export function nullDuplicatesSql(table: string, spec: IndexSpec): Sql {
  const keys = Object.keys(spec.keys).map((k) => key(k));
  const anyNull = sql.join(keys.map((k) => sql`${k} IS NULL`), sql.raw(' OR '));
  return sql`SELECT 1 AS dup FROM ${sql.id(table)} WHERE ${anyNull} GROUP BY ${sql.join(keys)} HAVING count(*) > 1 LIMIT 1`;
}
