import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { NotImplementedError, UpstreamError } from '../core/errors';
import { ensureSchema } from '../stores';
import type { Store } from '../store/port';
import { openStore, type OpenStoreOptions } from '../store/open-store';
import { SwitchableStore, type StoreTarget } from '../store/switchable';
import { PLATFORM_INDEXES } from './platform-schema';
import { PlatformStorageStore, type LastPrepared } from './storage-store';

/** A MongoDB connection string (MongoDB, Amazon DocumentDB, FerretDB); the driver parses the rest. */
export const MongoUriSchema = z
  .string()
  .max(4096)
  .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// URI');
/** A MongoDB database name: 1-63 characters, none of `/\. "$*<>:|?`. */
export const DatabaseNameSchema = z.string().regex(/^[^/\\. "$*<>:|?\0]{1,63}$/, 'must be 1-63 characters without / \\ . space " $ * < > : | ?');

/** POST /admin/storage/prepare-docdb body; the two app fields come together or not at all. */
export const PrepareDocdbSchema = z
  .object({
    uri: MongoUriSchema,
    database: DatabaseNameSchema,
    admin_uri: MongoUriSchema.optional(),
    app_username: z.string().min(1).max(128).optional(),
    app_password: z.string().min(1).max(1024).optional(),
  })
  .strict()
  .refine((b) => (b.app_username === undefined) === (b.app_password === undefined), {
    path: ['app_password'],
    message: 'app_username and app_password are given together or not at all',
  });
export type PrepareDocdb = z.infer<typeof PrepareDocdbSchema>;

/**
 * POST /admin/storage/switch body. `docdb` needs `uri` and `database`; `memory` and `sqlite`
 * (the configured data dir, DESIGN.md's third backend name, docs/decisions.md) take neither.
 */
export const StorageSwitchSchema = z
  .object({
    backend: z.enum(['docdb', 'memory', 'sqlite']),
    uri: MongoUriSchema.optional(),
    database: DatabaseNameSchema.optional(),
  })
  .strict()
  .superRefine((b, issue) => {
    for (const field of ['uri', 'database'] as const) {
      if (b.backend === 'docdb' && b[field] === undefined) issue.addIssue({ code: 'custom', path: [field], message: 'required for the docdb backend' });
      if (b.backend !== 'docdb' && b[field] !== undefined)
        issue.addIssue({ code: 'custom', path: [field], message: `not accepted for the ${b.backend} backend` });
    }
  });
export type StorageSwitch = z.infer<typeof StorageSwitchSchema>;

/** How the storage endpoints reach backends: the store opener and the docdb application-user step. */
export interface StorageDeps {
  readonly open: (options: OpenStoreOptions) => Promise<Store>;
  readonly ensureAppUser: (adminUri: string, database: string, username: string, password: string) => Promise<boolean>;
  /** The configured data directory (the `sqlite` switch target). */
  readonly dataDir: string;
}

/** The real backends: `openStore`, and the driver's user commands loaded only when asked for. */
export function defaultStorageDeps(dataDir: string): StorageDeps {
  return {
    open: openStore,
    ensureAppUser: async (...args) => (await import('../store/mongo/app-user')).ensureAppUser(...args),
    dataDir,
  };
}

/** The URI without its password (`mongodb://user:secret@h/` → `mongodb://user@h/`): what GET /admin/storage may show. */
export function redactUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/)([^@/]*)@/, (_m, scheme: string, userinfo: string) => `${scheme}${userinfo.split(':')[0]}@`);
}

function upstream(step: string, error: unknown): UpstreamError {
  const reason = error instanceof Error ? error.message.slice(0, 300) : 'unknown error';
  return new UpstreamError(`Storage ${step} failed: ${reason}`);
}

/** Opens `options` and prepares its schema (tenant and platform collections, indexes); closes it again on failure. */
async function openPrepared(deps: StorageDeps, options: OpenStoreOptions): Promise<{ store: Store; collections: number }> {
  let store: Store;
  try {
    store = await deps.open(options);
  } catch (error) {
    throw upstream('connection', error);
  }
  try {
    return { store, collections: await ensureSchema(store, PLATFORM_INDEXES) };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw upstream('schema preparation', error);
  }
}

/**
 * POST /admin/storage/prepare-docdb (identity-api.md "Platform administration"): idempotently
 * creates every collection and index in `database`, then, when both app fields are given, the
 * application user (through `admin_uri`, default `uri`). Does not change the running backend.
 * Returns `{database, collections_ensured, app_user_created}` (null = not requested, false =
 * existed) and records `last_prepared` (password-less URI) in the running store. Throws
 * UpstreamError (502) when the server is unreachable or user creation fails.
 */
export async function prepareDocdb(ctx: EngineContext, deps: StorageDeps, input: PrepareDocdb) {
  const { store, collections } = await openPrepared(deps, { backend: 'docdb', uri: input.uri, database: input.database });
  await store.close();
  let appUserCreated: boolean | null = null;
  if (input.app_username !== undefined && input.app_password !== undefined) {
    try {
      appUserCreated = await deps.ensureAppUser(input.admin_uri ?? input.uri, input.database, input.app_username, input.app_password);
    } catch (error) {
      throw upstream('application user creation', error);
    }
  }
  await new PlatformStorageStore(ctx.stores.store).recordPrepared({ uri: redactUri(input.uri), database: input.database, updated_at: ctx.now().toISOString() });
  return { database: input.database, collections_ensured: collections, app_user_created: appUserCreated };
}

/** GET /admin/storage: `{active_backend, active_database, last_prepared}`; never admin_uri or app credentials. */
export async function storageStatus(
  ctx: EngineContext,
): Promise<{ active_backend: string; active_database: string | null; last_prepared: LastPrepared | null }> {
  const store = ctx.stores.store;
  const database = store instanceof SwitchableStore ? store.target.database : null;
  return { active_backend: store.backend, active_database: database, last_prepared: await new PlatformStorageStore(store).lastPrepared() };
}

/**
 * POST /admin/storage/switch: opens the target, runs the schema preparation on it, then makes it
 * the running store for every following request of this process. Migrates no data and is not
 * persisted (the next start opens the configured backend). `sqlite` returns to the store opened
 * at start-up when that was SQLite, else opens the configured data dir. Returns `{backend,
 * database}`. Throws UpstreamError (502) for an unreachable docdb, NotImplementedError (501)
 * when the running store cannot be switched.
 */
export async function switchStorage(ctx: EngineContext, deps: StorageDeps, input: StorageSwitch): Promise<StoreTarget> {
  const running = ctx.stores.store;
  if (!(running instanceof SwitchableStore)) throw new NotImplementedError('This process was started without a switchable store');
  const target: StoreTarget = { backend: input.backend, database: input.backend === 'docdb' ? (input.database as string) : null };
  if (input.backend === 'sqlite' && running.boot.target.backend === 'sqlite') {
    await ensureSchema(running.boot.store, PLATFORM_INDEXES);
    running.switchTo(running.boot.store, running.boot.target);
  } else {
    const { store } = await openPrepared(deps, { backend: input.backend, dataDir: deps.dataDir, uri: input.uri, database: input.database });
    running.switchTo(store, target);
  }
  ctx.log.warn({ backend: target.backend, database: target.database }, 'storage switched at runtime (no data migrated, not persisted)');
  return { backend: target.backend, database: target.database };
}
