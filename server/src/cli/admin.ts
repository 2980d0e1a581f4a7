import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import { silentLogger } from '@planwarden/engine/core/logger';
import { recordAudit } from '@planwarden/engine/audit/record';
import { setSuperadmin } from '@planwarden/engine/identity/registration';
import { SecretBox } from '@planwarden/engine/llm/secret-box';
import { createAnalyzerRegistry } from '@planwarden/engine/analyzers/registry';
import { openStore, type OpenStoreOptions } from '@planwarden/engine/store/open-store';
import type { Store } from '@planwarden/engine/store/port';
import { copyCollections } from '@planwarden/engine/store/migrate';
import { PLATFORM_INDEXES } from '@planwarden/engine/admin/platform-schema';
import { DatabaseNameSchema, MongoUriSchema } from '@planwarden/engine/admin/storage-admin';
import { createStores, ensureSchema, schemaIndexes } from '@planwarden/engine/stores';
import { loadConfig } from '../config/config';

const USAGE = 'usage: admin make-superadmin <email> | admin revoke-superadmin <email> | admin migrate --to <mongodb-uri> [--database <name>]';

/** How `migrate` reaches its target (tests hand in a second SQLite store; the default opens MongoDB). */
export interface AdminDeps {
  readonly openTarget: (options: OpenStoreOptions) => Promise<Store>;
}

const DEFAULT_DEPS: AdminDeps = { openTarget: openStore };

/** `--name value` pairs after the command; null when an argument is unknown, repeated or lacks its value. */
function flags(args: readonly string[], known: readonly string[]): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]?.replace(/^--/, '');
    const value = args[i + 1];
    if (!args[i]?.startsWith('--') || !known.includes(name) || name in out || value === undefined) return null;
    out[name] = value;
  }
  return out;
}

/**
 * `migrate --to <mongodb-uri> [--database <name>]` (beyond the spec): prepares the
 * target's schema, then copies every collection the schema declares (tenant and platform) from
 * `source` through the storage port, printing one line per collection. Idempotent and resumable
 * (store/migrate.ts); every copied batch is re-read from the target. Returns the exit code: 2 bad
 * arguments, 1 the copy failed, 0 done.
 */
export async function runMigrateCommand(source: Store, args: readonly string[], out: (line: string) => void, deps: AdminDeps = DEFAULT_DEPS): Promise<number> {
  const parsed = flags(args, ['to', 'database']);
  const uri = MongoUriSchema.safeParse(parsed?.to);
  const database = parsed?.database === undefined ? null : DatabaseNameSchema.safeParse(parsed.database);
  if (!parsed || !uri.success || (database && !database.success)) {
    out(
      !parsed || parsed.to === undefined ? USAGE : !uri.success ? '--to: must be a mongodb:// or mongodb+srv:// URI' : '--database: not a valid database name',
    );
    return 2;
  }
  let target: Store;
  try {
    target = await deps.openTarget({ backend: 'docdb', uri: uri.data, database: database?.data });
  } catch (error) {
    out(`cannot open the target: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  try {
    await ensureSchema(target, PLATFORM_INDEXES);
    const copies = await copyCollections(source, target, schemaIndexes(PLATFORM_INDEXES), (c) => {
      out(
        `${c.collection}: ${c.source} read, ${c.inserted} inserted, ${c.replaced} replaced, ${c.unchanged} unchanged, ${c.displaced} displaced, ${c.verified} verified`,
      );
    });
    out(`migrated ${copies.length} collections, ${copies.reduce((n, c) => n + c.verified, 0)} documents verified (${source.backend} → ${target.backend})`);
    return 0;
  } catch (error) {
    out(`migration failed: ${error instanceof Error ? error.message : String(error)} (safe to run again)`);
    return 1;
  } finally {
    await target.close();
  }
}

/**
 * The administrative command (identity-api.md "Superadmin bootstrap": the first superadmin is
 * created out of band). `make-superadmin <email>` / `revoke-superadmin <email>` flip the flag,
 * end the account's sessions and record superadmin.grant; `migrate` copies the store to MongoDB
 * (runMigrateCommand). Returns the exit code.
 */
export async function runAdminCommand(
  engine: EngineContext,
  argv: readonly string[],
  out: (line: string) => void,
  deps: AdminDeps = DEFAULT_DEPS,
): Promise<number> {
  const [command, email] = argv;
  if (command === 'migrate') return runMigrateCommand(engine.stores.store, argv.slice(1), out, deps);
  if ((command !== 'make-superadmin' && command !== 'revoke-superadmin') || !email) {
    out(USAGE);
    return 2;
  }
  const user = await engine.stores.users.byEmail(email);
  if (!user) {
    out(`no account with e-mail ${email}`);
    return 1;
  }
  const enabled = command === 'make-superadmin';
  const ctx = { engine, actor: { userId: null, keyId: '_cli', email: null, isSuperadmin: true, ip: null, requestId: null } };
  const changed = await setSuperadmin(ctx, user.user_id, enabled);
  await recordAudit(ctx, {
    orgId: null,
    action: 'superadmin.grant',
    targetType: 'user',
    targetId: user.user_id,
    before: { is_superadmin: user.is_superadmin },
    after: { is_superadmin: changed?.after.is_superadmin ?? enabled },
  });
  out(`${user.email} is ${enabled ? 'now' : 'no longer'} a superadmin`);
  return 0;
}

/** `npm run admin -- make-superadmin <email>` (or `migrate --to <uri>`) against the configured storage. */
async function main(): Promise<void> {
  const config = loadConfig();
  const store = await openStore({
    backend: config.storage.backend,
    dataDir: resolve(config.data_dir),
    uri: config.storage.uri ?? undefined,
    database: config.storage.database,
  });
  try {
    await ensureSchema(store, PLATFORM_INDEXES);
    // The command seals and opens nothing, so a throwaway key is enough when none is configured.
    const box = new SecretBox(config.secret_key ?? randomBytes(32));
    const engine: EngineContext = { stores: createStores(store, box), analyzers: createAnalyzerRegistry(), now: () => new Date(), log: silentLogger };
    process.exitCode = await runAdminCommand(engine, process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
  } finally {
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`admin command failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
