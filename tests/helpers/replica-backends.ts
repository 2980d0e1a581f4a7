import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The stores two replicas can share: one SQLite file (WAL) always, and a MongoDB database when
 * MONGODB_URI names a server (CI starts the MongoDB-wire stand-in; a fresh clone skips it).
 * Each `prepare()` gives a fresh data dir (and database), the configuration both replicas get
 * (as environment variables for a spawned process, as overrides for an in-process server), and
 * a cleanup that removes both.
 */
export interface ReplicaStore {
  /** The value of storage.backend. */
  name: 'sqlite' | 'docdb';
  enabled: boolean;
  prepare(): PreparedStore;
}

export interface PreparedStore {
  env: Record<string, string>;
  overrides: Record<string, unknown>;
  cleanup(): Promise<void>;
}

const MONGODB_URI = process.env.MONGODB_URI;

// docdb replicas must share their keys (server/src/config/key-file.ts refuses generated ones).
const SHARED_KEYS = { secret_key: 'replica-test-secret-key-0123456789', jwt: 'replica-test-jwt-secret-0123456789' };

function dataDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-replicas-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const REPLICA_STORES: ReplicaStore[] = [
  {
    name: 'sqlite',
    enabled: true,
    prepare: () => {
      const { dir, remove } = dataDir();
      return {
        env: { PLANWARDEN_DATA_DIR: dir, PLANWARDEN_STORAGE_BACKEND: 'sqlite' },
        overrides: { storage: { backend: 'sqlite' }, data_dir: dir },
        cleanup: async () => remove(),
      };
    },
  },
  {
    name: 'docdb',
    enabled: MONGODB_URI !== undefined,
    prepare: () => {
      const { dir, remove } = dataDir();
      const database = `planwarden_replicas_${randomUUID().slice(0, 8)}`;
      const uri = MONGODB_URI as string;
      return {
        env: {
          PLANWARDEN_DATA_DIR: dir,
          PLANWARDEN_STORAGE_BACKEND: 'docdb',
          PLANWARDEN_STORAGE_URI: uri,
          PLANWARDEN_STORAGE_DATABASE: database,
          PLANWARDEN_SECRET_KEY: SHARED_KEYS.secret_key,
          PLANWARDEN_JWT_SECRET: SHARED_KEYS.jwt,
        },
        overrides: {
          storage: { backend: 'docdb', uri, database },
          data_dir: dir,
          secret_key: SHARED_KEYS.secret_key,
          jwt: { secret: SHARED_KEYS.jwt },
        },
        cleanup: async () => {
          const { MongoClient } = await import('mongodb');
          const client = await new MongoClient(uri).connect();
          try {
            await client.db(database).dropDatabase();
          } finally {
            await client.close();
          }
          remove();
        },
      };
    },
  },
];
