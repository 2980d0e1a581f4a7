/**
 * Index DDL for the SQLite adapter: indexes on the hot columns of the key paths (columns.ts;
 * the same columns filter.ts reads, so the planner uses them). Every key path but `_id` must
 * already have its column (SqliteStore.ensureIndexes adds them first).
 *
 * A unique index follows MongoDB: an absent or null key is a value like any other, so two
 * documents lacking the key collide. SQLite's UNIQUE treats NULLs as distinct, so the adapter
 * checks a written document whose unique key contains a NULL itself (collection.ts
 * `#assertNullKeysFree`, ConflictError). In older versions a pair of triggers per unique index did
 * that check; a trigger on a table roughly doubles the cost of every insert into it even when
 * its WHEN clause is false (measured: 7,651 rows with four indexes, 110-130 ms without, 260-270
 * ms with), so they are dropped where an older database still has them.
 */
import { sql } from 'kysely';
import type { IndexSpec } from '../port';
import type { Sql } from './connection';
import { columnName } from './columns';

/** SQLite index names are global to the database: prefix with the collection. */
export function sqliteIndexName(collection: string, index: string): string {
  return `${collection}__${index}`;
}

/** The key's column. */
function key(path: string): Sql {
  return sql.raw(path === '_id' ? '_id' : columnName(path));
}

/**
 * Statements creating the index, and dropping the null-key triggers an older database has for
 * it (see the module comment); idempotent.
 */
export function createIndexDdl(table: string, spec: IndexSpec): Sql[] {
  const name = sqliteIndexName(table, spec.name);
  const cols = Object.entries(spec.keys).map(([k, dir]) => sql`${key(k)} ${sql.raw(dir === -1 ? 'DESC' : 'ASC')}`);
  const unique = spec.unique ? sql.raw('UNIQUE ') : sql.raw('');
  return [
    sql`CREATE ${unique}INDEX IF NOT EXISTS ${sql.id(name)} ON ${sql.id(table)} (${sql.join(cols)})`,
    sql`DROP TRIGGER IF EXISTS ${sql.id(`${name}__ins`)}`,
    sql`DROP TRIGGER IF EXISTS ${sql.id(`${name}__upd`)}`,
  ];
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
  const anyNull = sql.join(
    keys.map((k) => sql`${k} IS NULL`),
    sql.raw(' OR '),
  );
  return sql`SELECT 1 AS dup FROM ${sql.id(table)} WHERE ${anyNull} GROUP BY ${sql.join(keys)} HAVING count(*) > 1 LIMIT 1`;
}
