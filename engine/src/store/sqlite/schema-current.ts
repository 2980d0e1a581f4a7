import { sql } from 'kysely';
import type { IndexSpec } from '../port';
import { pathOfColumn } from './columns';
import type { SqliteConnection } from './connection';
import { sqliteIndexName } from './indexes';

/**
 * True when the database already holds everything `SqliteStore.ensureIndexesBatch` would create
 * for `schema` (collection → index specs): each collection's table with a hot column for every
 * key path, each index built and recorded in `_planwarden_indexes` as `recordedSpec(spec)`, and
 * none of the null-key triggers older databases had (indexes.ts). Three reads in all, so a start
 * on an existing database skips the schema transaction, whose statements (one per table and
 * index) cost ~50 ms of every server start (docs/decisions.md "Compiled npm start"). Any
 * difference answers false and the transaction runs as before. Reads only the rows of `schema`'s
 * collections.
 */
export function schemaIsCurrent(conn: SqliteConnection, schema: ReadonlyMap<string, readonly IndexSpec[]>, recordedSpec: (spec: IndexSpec) => string): boolean {
  // Only the catalogue rows of these collections: a one-collection ensureIndexes (retention's TTL
  // indexes at start) reads its own table, not the whole schema.
  const names = JSON.stringify([...schema.keys()]);
  const objects = new Set(
    conn
      .all<{ type: string; name: string }>(
        sql`SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index', 'trigger') AND tbl_name IN (SELECT value FROM json_each(${names}))`,
      )
      .map((r) => `${r.type}:${r.name}`),
  );
  const recorded = new Map(
    conn
      .all<{ collection: string; name: string; spec: string }>(
        sql`SELECT collection, name, spec FROM _planwarden_indexes WHERE collection IN (SELECT value FROM json_each(${names}))`,
      )
      .map((r) => [`${r.collection}\0${r.name}`, r.spec]),
  );
  const columns = new Map<string, Set<string>>();
  const rows = conn.all<{ tbl: string; col: string }>(
    sql`SELECT m.name AS tbl, p.name AS col FROM sqlite_master AS m, pragma_table_info(m.name) AS p
      WHERE m.type = 'table' AND m.name IN (SELECT value FROM json_each(${names}))`,
  );
  for (const { tbl, col } of rows) {
    const path = pathOfColumn(col);
    if (path === null) continue;
    let paths = columns.get(tbl);
    if (!paths) columns.set(tbl, (paths = new Set()));
    paths.add(path);
  }
  for (const [collection, indexes] of schema) {
    if (!objects.has(`table:${collection}`)) return false;
    const paths = columns.get(collection);
    for (const spec of indexes) {
      if (Object.keys(spec.keys).some((p) => p !== '_id' && !paths?.has(p))) return false;
      const name = sqliteIndexName(collection, spec.name);
      if (recorded.get(`${collection}\0${spec.name}`) !== recordedSpec(spec) || !objects.has(`index:${name}`)) return false;
      if (objects.has(`trigger:${name}__ins`) || objects.has(`trigger:${name}__upd`)) return false;
    }
  }
  return true;
}
