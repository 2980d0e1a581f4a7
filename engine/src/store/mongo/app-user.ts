/**
 * The application user of a docdb database (identity-api.md "Platform administration",
 * POST /admin/storage/prepare-docdb): a user with readWrite on that one database, created with an
 * administrative connection. Loaded on demand, like the adapter, so the driver stays out of
 * desktop start-up.
 */
import { MongoClient } from 'mongodb';

/**
 * Ensures `username` exists in `database` (authentication database = `database`, role readWrite).
 * Connects with `adminUri`. Returns true when created, false when it already existed (its
 * password is left as it is). Throws the driver's error when unreachable or not authorized.
 */
export async function ensureAppUser(adminUri: string, database: string, username: string, password: string): Promise<boolean> {
  const client = new MongoClient(adminUri);
  try {
    await client.connect();
    const db = client.db(database);
    const info = (await db.command({ usersInfo: { user: username, db: database } })) as { users?: unknown[] };
    if ((info.users ?? []).length > 0) return false;
    await db.command({ createUser: username, pwd: password, roles: [{ role: 'readWrite', db: database }] });
    return true;
  } finally {
    await client.close();
  }
}
