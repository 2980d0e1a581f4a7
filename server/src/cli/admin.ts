import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EngineContext } from '@planwarden/engine/context';
import { silentLogger } from '@planwarden/engine/context';
import { recordAudit } from '@planwarden/engine/audit/record';
import { setSuperadmin } from '@planwarden/engine/identity/registration';
import { SecretBox } from '@planwarden/engine/llm/secret-box';
import { createAnalyzerRegistry } from '@planwarden/engine/analyzers/registry';
import { openStore } from '@planwarden/engine/store/open-store';
import { createStores, ensureSchema } from '@planwarden/engine/stores';
import { loadConfig } from '../config/config';

const USAGE = 'usage: admin make-superadmin <email> | admin revoke-superadmin <email>';

/**
 * The administrative command (identity-api.md "Superadmin bootstrap": the first superadmin is
 * created out of band). `make-superadmin <email>` / `revoke-superadmin <email>` flip the flag,
 * end the account's sessions and record superadmin.grant. Returns the exit code.
 */
export async function runAdminCommand(engine: EngineContext, argv: readonly string[], out: (line: string) => void): Promise<number> {
  const [command, email] = argv;
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
    orgId: null, action: 'superadmin.grant', targetType: 'user', targetId: user.user_id,
    before: { is_superadmin: user.is_superadmin }, after: { is_superadmin: changed?.after.is_superadmin ?? enabled },
  });
  out(`${user.email} is ${enabled ? 'now' : 'no longer'} a superadmin`);
  return 0;
}

/** `npx tsx server/src/cli/admin.ts make-superadmin <email>` against the configured storage. */
async function main(): Promise<void> {
  const config = loadConfig();
  const store = await openStore({ backend: config.storage.backend, dataDir: resolve(config.data_dir), uri: config.storage.uri ?? undefined, database: config.storage.database });
  try {
    await ensureSchema(store);
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
