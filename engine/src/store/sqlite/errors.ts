/**
 * Driver errors to AppErrors at the adapter boundary (STYLE.md "Errors"): by SQLite extended
 * result code, never by message text.
 */
import Database from 'better-sqlite3';
import { ConflictError } from '../../core/errors';

const CONFLICT_CODES = new Set([
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
  // The null-key triggers of an older database not reopened since the adapter dropped them (see indexes.ts).
  'SQLITE_CONSTRAINT_TRIGGER',
]);

/** Returns a ConflictError for a duplicate key in `collection`, else `err` unchanged. */
export function mapSqliteError(err: unknown, collection: string): unknown {
  if (err instanceof Database.SqliteError && CONFLICT_CODES.has(err.code)) {
    return new ConflictError(`Duplicate key in ${collection}`);
  }
  return err;
}
