/**
 * The `memory` backend (DESIGN.md "Storage"): the SQLite adapter on a private `:memory:`
 * database, for tests and throwaway runs. Data is lost on close.
 */
import type { Store } from '../port';
import { SqliteStore } from '../sqlite/store';

/** Opens an empty in-memory store (`backend` is `memory`). */
export function openMemoryStore(): Store {
  return new SqliteStore(':memory:', 'memory');
}
