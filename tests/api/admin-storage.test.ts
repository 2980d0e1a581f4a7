import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverCollections } from '../../engine/src/admin/platform-schema';
import { prepareDocdb } from '../../engine/src/admin/storage-admin';
import { openStore, type OpenStoreOptions } from '../../engine/src/store/open-store';
import type { Store } from '../../engine/src/store/port';
import { runMigrateCommand } from '../../server/src/cli/admin';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, registerUser, startAuthServer, type Client } from '../helpers/identity';

/** identity-api.md "Platform administration": storage status, docdb preparation, the runtime switch; and the offline migration. */
const dataDir = mkdtempSync(join(tmpdir(), 'pw-storage-'));
let server: TestServer;
let boot: Client;
let owner: Awaited<ReturnType<typeof registerUser>>;
/** A TCP port that accepts and drops every connection: a MongoDB server that cannot be reached. */
let blackhole: Server;
let deadUri: string;

beforeAll(async () => {
  server = await startAuthServer({ overrides: { data_dir: dataDir, storage: { backend: 'sqlite' } } });
  boot = bootstrap(server);
  owner = await registerUser(server, 'storage-owner@example.com', { orgName: 'Storage Org' });
  blackhole = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const { port } = blackhole.address() as { port: number };
  deadUri = `mongodb://127.0.0.1:${port}/?directConnection=true&serverSelectionTimeoutMS=300&connectTimeoutMS=300`;
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => blackhole.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

const orgNames = async () => ((await boot.get('/admin/organizations')).body.organizations as { name: string }[]).map((o) => o.name).sort();

describe('GET /admin/storage and POST /admin/storage/prepare-docdb', () => {
  it('reports the configured backend and no preparation yet; org owners get 403', async () => {
    expect((await boot.get('/admin/storage')).body).toEqual({ active_backend: 'sqlite', active_database: null, last_prepared: null });
    expect((await owner.client.get('/admin/storage')).status).toBe(403);
    expect((await owner.client.post('/admin/storage/switch', { backend: 'memory' })).status).toBe(403);
  });

  it('answers 422 naming the field for a bad body, before touching any server', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ database: 'planwarden' }, 'uri'],
      [{ uri: 'postgres://db.example/x', database: 'planwarden' }, 'uri'],
      [{ uri: 'mongodb://127.0.0.1/', database: 'bad/name' }, 'database'],
      [{ uri: 'mongodb://127.0.0.1/', database: 'planwarden', app_username: 'pw-app' }, 'app_password'],
      [{ uri: 'mongodb://127.0.0.1/', database: 'planwarden', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await boot.post('/admin/storage/prepare-docdb', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toContain(field);
    }
  });

  it('answers 502 when the server is unreachable, and records nothing', async () => {
    const res = await boot.post('/admin/storage/prepare-docdb', {
      uri: deadUri,
      database: 'planwarden',
      app_username: 'pw-app',
      app_password: 'secret-app-pw',
    });
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/Storage connection failed/);
    expect(res.text).not.toContain('secret-app-pw');
    expect((await boot.get('/admin/storage')).body.last_prepared).toBeNull();
  });
});

describe('docdb preparation through the port (an in-memory store standing in for MongoDB)', () => {
  it('ensures every collection, creates the app user once, and records the password-less URI', async () => {
    const users = new Set<string>();
    const deps = {
      open: async (options: OpenStoreOptions) => {
        expect(options).toMatchObject({ backend: 'docdb', database: 'pw_prod' });
        return openStore({ backend: 'memory' });
      },
      ensureAppUser: async (adminUri: string, database: string, username: string) => {
        expect([adminUri, database]).toEqual(['mongodb://root:root-pw@db.internal/admin', 'pw_prod']);
        const created = !users.has(username);
        users.add(username);
        return created;
      },
      dataDir,
    };
    const input = {
      uri: 'mongodb://pw:db-pw@db.internal:27017/?tls=true',
      database: 'pw_prod',
      admin_uri: 'mongodb://root:root-pw@db.internal/admin',
      app_username: 'pw-app',
      app_password: 'app-pw',
    };
    const first = await prepareDocdb(server.services.engine, deps, input);
    expect(first).toEqual({ database: 'pw_prod', collections_ensured: serverCollections().length, app_user_created: true });
    expect((await prepareDocdb(server.services.engine, deps, input)).app_user_created).toBe(false);
    const { app_username: _u, app_password: _p, ...withoutUser } = input;
    expect((await prepareDocdb(server.services.engine, deps, withoutUser)).app_user_created).toBeNull();
    const status = await boot.get('/admin/storage');
    expect(status.body).toEqual({
      active_backend: 'sqlite',
      active_database: null,
      last_prepared: { uri: 'mongodb://pw@db.internal:27017/?tls=true', database: 'pw_prod', updated_at: expect.any(String) },
    });
    expect(status.text).not.toMatch(/db-pw|root-pw|app-pw/);
  });
});

describe('POST /admin/storage/switch', () => {
  it('answers 422 for docdb without uri or database and for fields the backend does not take', async () => {
    for (const body of [
      { backend: 'docdb' },
      { backend: 'docdb', uri: deadUri },
      { backend: 'docdb', database: 'planwarden' },
      { backend: 'memory', uri: deadUri },
      { backend: 'tape' },
    ]) {
      expect((await boot.post('/admin/storage/switch', body)).status, JSON.stringify(body)).toBe(422);
    }
  });

  it('answers 502 for an unreachable docdb and keeps the running store', async () => {
    expect((await boot.post('/admin/storage/switch', { backend: 'docdb', uri: deadUri, database: 'planwarden' })).status).toBe(502);
    expect((await boot.get('/admin/storage')).body.active_backend).toBe('sqlite');
    expect(await orgNames()).toContain('Storage Org');
  });

  it('switches to memory at once with no data migrated, and back to the SQLite file with its data', async () => {
    const before = await orgNames();
    expect(before).toContain('Storage Org');
    const toMemory = await boot.post('/admin/storage/switch', { backend: 'memory' });
    expect(toMemory.status).toBe(200);
    expect(toMemory.body).toEqual({ backend: 'memory', database: null });
    // The very next request runs on the empty store: schema prepared, no org carried over.
    expect((await boot.get('/admin/storage')).body).toMatchObject({ active_backend: 'memory', active_database: null });
    expect(await orgNames()).toEqual([]);
    // An account that lives only in the SQLite file no longer exists for this process.
    expect((await owner.client.get('/auth/me')).status).toBe(401);

    expect((await boot.post('/admin/storage/switch', { backend: 'sqlite' })).body).toEqual({ backend: 'sqlite', database: null });
    expect((await boot.get('/admin/storage')).body.active_backend).toBe('sqlite');
    expect(await orgNames()).toEqual(before);
    expect((await owner.client.get('/auth/me')).status).toBe(200);
  });
});

describe('npm run admin -- migrate --to <uri>', () => {
  const targetDir = mkdtempSync(join(tmpdir(), 'pw-migrate-'));
  let source: Store;
  let target: Store;
  const opened: OpenStoreOptions[] = [];
  /** The CLI's docdb target, stood in for by a second SQLite file (no MongoDB server here). */
  const deps = {
    openTarget: async (options: OpenStoreOptions) => {
      opened.push(options);
      return openStore({ backend: 'sqlite', dataDir: targetDir });
    },
  };
  const run = async (args: string[]) => {
    const lines: string[] = [];
    const code = await runMigrateCommand(source, args, (line) => lines.push(line), deps);
    return { code, lines };
  };

  beforeAll(async () => {
    // More API data in the source: a team, a custom rule, an audit trail.
    expect((await owner.client.post(`/orgs/${owner.orgId}/teams`, { name: 'Platform' })).status).toBe(201);
    expect((await boot.patch(`/admin/organizations/${owner.orgId}/lock`, { locked: false })).status).toBe(200);
    source = await openStore({ backend: 'sqlite', dataDir });
    // The target already holds a seeded default org under another _id, as a server started on it would.
    target = await openStore({ backend: 'sqlite', dataDir: targetDir });
    await target.collection('orgs').insertOne({ _id: 'seeded-elsewhere', org_id: 'default', name: 'Seeded on the target', slug: 'default' } as never);
  });
  afterAll(async () => {
    await source.close();
    await target.close();
    rmSync(targetDir, { recursive: true, force: true });
  });

  it('rejects bad arguments with the usage and exit code 2, opening nothing', async () => {
    for (const args of [
      [],
      ['--to'],
      ['--to', 'postgres://db/x'],
      ['--to', 'mongodb://h/x', '--database', 'a.b'],
      ['--to', 'mongodb://h/x', '--force', 'yes'],
      ['mongodb://h/x'],
    ]) {
      const { code, lines } = await run(args);
      expect(code, args.join(' ')).toBe(2);
      expect(lines).toHaveLength(1);
    }
    expect(opened).toEqual([]);
  });

  it('copies every declared collection with a line each, verified, and a second run changes nothing', async () => {
    const first = await run(['--to', 'mongodb://db.internal:27017/pw', '--database', 'planwarden_prod']);
    expect(first.code, first.lines.join('\n')).toBe(0);
    expect(opened).toEqual([{ backend: 'docdb', uri: 'mongodb://db.internal:27017/pw', database: 'planwarden_prod' }]);
    const collections = serverCollections();
    expect(first.lines).toHaveLength(collections.length + 1);
    for (const name of collections)
      expect(
        first.lines.some((l) => l.startsWith(`${name}: `)),
        name,
      ).toBe(true);
    expect(first.lines.find((l) => l.startsWith('orgs: '))).toMatch(/1 displaced/);

    let documents = 0;
    for (const name of collections) {
      const from = await source.collection(name).find({}, { sort: { _id: 1 } });
      const to = await target.collection(name).find({}, { sort: { _id: 1 } });
      expect(to, name).toEqual(from);
      documents += from.length;
    }
    expect(documents).toBeGreaterThan(100); // built-in rules, audit events, users, memberships, teams ...
    expect(await target.collection('orgs').count({ org_id: 'default' })).toBe(1);
    expect((await target.collection('teams').find({ org_id: owner.orgId })).map((t) => (t as { name?: string }).name)).toEqual(['Platform']);

    const second = await run(['--to', 'mongodb://db.internal:27017/pw']);
    expect(second.code).toBe(0);
    for (const line of second.lines.slice(0, -1)) expect(line).toMatch(/ 0 inserted, 0 replaced, \d+ unchanged, 0 displaced/);
  });

  it('overwrites a target document that drifted, and removes no target-only row', async () => {
    const [org] = await source.collection<{ _id: string; org_id: string }>('orgs').find({ org_id: owner.orgId as string });
    await target.collection('orgs').updateOne({ _id: org._id }, { $set: { name: 'Drifted' }, $unset: { slug: true } });
    await target.collection('teams').insertOne({ _id: 'target-only', org_id: 'elsewhere', name: 'Kept' } as never);
    const { code, lines } = await run(['--to', 'mongodb://db.internal:27017/pw']);
    expect(code).toBe(0);
    expect(lines.find((l) => l.startsWith('orgs: '))).toMatch(/1 replaced/);
    expect(await target.collection('orgs').findOne({ _id: org._id })).toEqual(await source.collection('orgs').findOne({ _id: org._id }));
    expect(await target.collection('teams').count({ _id: 'target-only' })).toBe(1);
  });

  it.skipIf(!process.env.MONGODB_URI)('copies into the MongoDB adapter when MONGODB_URI is set', async () => {
    const lines: string[] = [];
    const database = `pw_migrate_${process.pid}`;
    const code = await runMigrateCommand(source, ['--to', process.env.MONGODB_URI as string, '--database', database], (l) => lines.push(l));
    expect(code, lines.join('\n')).toBe(0);
    const mongo = await openStore({ backend: 'docdb', uri: process.env.MONGODB_URI, database });
    try {
      for (const name of serverCollections()) expect(await mongo.collection(name).count({}), name).toBe(await source.collection(name).count({}));
    } finally {
      await mongo.close();
    }
  });
});
