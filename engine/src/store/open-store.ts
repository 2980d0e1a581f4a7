/**
 * Opens the configured storage backend (DESIGN.md "Storage", the backends of
 * `POST /admin/storage/switch`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openMemoryStore } from './memory/store';
import type { Store } from './port';
import { SqliteStore } from './sqlite/store';

export type StoreBackend = 'sqlite' | 'memory' | 'docdb';

export interface OpenStoreOptions {
  backend: StoreBackend;
  /** sqlite: directory of `planwarden.sqlite` (created 0700 if missing), e.g. PLANWARDEN_DATA_DIR. */
  dataDir?: string;
  /** docdb: MongoDB connection string (MongoDB, Amazon DocumentDB, FerretDB). */
  uri?: string;
  /** docdb: database name; defaults to the one in `uri`, else `planwarden`. */
  database?: string;
}

/** File name of the SQLite database inside the data directory. */
export const SQLITE_FILE_NAME = 'planwarden.sqlite';

/**
 * Opens a Store. `sqlite` needs `dataDir`, `docdb` needs `uri` (the driver is loaded only
 * then, keeping it out of desktop start-up). Throws Error on missing options or an unknown
 * backend; driver errors (unreachable server, unreadable file) propagate.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  switch (options.backend) {
    case 'memory':
      return openMemoryStore();
    case 'sqlite': {
      if (!options.dataDir) throw new Error('The sqlite backend needs dataDir');
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 }); // private: holds the database and keys
      return new SqliteStore(join(options.dataDir, SQLITE_FILE_NAME), 'sqlite');
    }
    case 'docdb': {
      if (!options.uri) throw new Error('The docdb backend needs uri');
      const { MongoStore } = await import('./mongo/store');
      return MongoStore.connect(options.uri, options.database);
    }
    default:
      throw new Error(`Unknown storage backend ${JSON.stringify((options as { backend: unknown }).backend)}`);
  }
}
