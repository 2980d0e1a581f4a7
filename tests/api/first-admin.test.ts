/**
 * First run of a team server (docs/decisions.md "The configured admin owns the default
 * organization"): with only the default admin configured through the environment, as compose and
 * the Kubernetes manifests do, and no bootstrap key, that account signs in as owner of the
 * default organization and can create the org's first service key. The same on SQLite and, when
 * MONGODB_URI is set, on MongoDB; a restart keeps one membership, and an account registered
 * under that e-mail by someone else beforehand gains nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../engine/src/core/logger';
import { loadConfig } from '../../server/src/config/config';
import { startServer } from '../../server/src/server';
import { Client } from '../helpers/identity';
import type { TestServer } from '../helpers/test-server';

const ADMIN = { email: 'admin@example.com', password: 'first-admin-password' };
const MONGODB_URI = process.env.MONGODB_URI;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** The environment a container gets: auth on, the admin, no bootstrap key (PLANWARDEN_AUTH_API_KEY unset). */
function deploymentEnv(storage: Record<string, string>): Record<string, string> {
  return {
    PLANWARDEN_HOST: '127.0.0.1',
    PLANWARDEN_PORT: '0',
    PLANWARDEN_AUTH_ENABLED: 'true',
    PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL: ADMIN.email,
    PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD: ADMIN.password,
    PLANWARDEN_SECRET_KEY: 'first-admin-test-secret-key-0123456789',
    PLANWARDEN_JWT_SECRET: 'first-admin-test-jwt-secret-0123456789',
    PLANWARDEN_LOGGING_LEVEL: 'silent',
    ...storage,
  };
}

/** Starts the server from `env` alone (config file absent), as `npm start` in a container does. */
async function startFromEnv(env: Record<string, string>): Promise<TestServer> {
  const config = loadConfig({ env, cwd: '/nonexistent' });
  expect(config.auth.api_key).toBeNull();
  const server = await startServer(config, { log: silentLogger, sleep: async () => {}, pollIntervalMs: 50 });
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${server.url}/api/v1${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  return Object.assign(server, { config, api });
}

async function signIn(server: TestServer, who = ADMIN): Promise<{ client: Client; body: any }> {
  const client = new Client(server);
  const res = await client.post('/auth/session', who);
  expect(res.status, res.text).toBe(200);
  return { client, body: res.body };
}

const stores: { name: string; enabled: boolean; env: () => Record<string, string> }[] = [
  {
    name: 'sqlite',
    enabled: true,
    env: () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-first-admin-'));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      return { PLANWARDEN_DATA_DIR: dataDir, PLANWARDEN_STORAGE_BACKEND: 'sqlite' };
    },
  },
  {
    name: 'docdb',
    enabled: MONGODB_URI !== undefined,
    env: () => {
      const database = `planwarden_first_admin_${randomUUID().slice(0, 8)}`;
      cleanups.push(async () => {
        const { MongoClient } = await import('mongodb');
        const client = await new MongoClient(MONGODB_URI as string).connect();
        await client.db(database).dropDatabase();
        await client.close();
      });
      const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-first-admin-'));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      return {
        PLANWARDEN_DATA_DIR: dataDir,
        PLANWARDEN_STORAGE_BACKEND: 'docdb',
        PLANWARDEN_STORAGE_URI: MONGODB_URI as string,
        PLANWARDEN_STORAGE_DATABASE: database,
      };
    },
  },
];

describe.each(stores)('first run on $name', (store) => {
  describe.runIf(store.enabled)('the configured admin', () => {
    it('signs in as owner of the default org, creates its first key, and the key works', async () => {
      const server = await startFromEnv(deploymentEnv(store.env()));
      try {
        expect((await new Client(server).post('/auth/keys', { role: 'admin' })).status).toBe(401);
        const { client, body } = await signIn(server);
        expect(body).toMatchObject({ org_id: 'default', role: 'owner', is_superadmin: true });
        const created = await client.post('/auth/keys', { role: 'admin', name: 'ci' });
        expect(created.status, created.text).toBe(201);
        const ci = new Client(server, { 'X-API-Key': created.body.key });
        const keys = await ci.get('/auth/keys');
        expect(keys.status).toBe(200);
        expect(keys.body.keys.map((k: { name: string }) => k.name)).toEqual(['ci']);
      } finally {
        await server.close();
      }
    });

    it('is idempotent on restart: one membership, still owner', async () => {
      const env = deploymentEnv(store.env());
      for (let run = 0; run < 2; run += 1) {
        const server = await startFromEnv(env);
        try {
          const { client, body } = await signIn(server);
          expect(body).toMatchObject({ org_id: 'default', role: 'owner' });
          const members = (await client.get('/orgs/default/members')).body.members as { user_id: string; role: string }[];
          expect(members).toEqual([expect.objectContaining({ user_id: body.user.user_id, role: 'owner' })]);
        } finally {
          await server.close();
        }
      }
    });

    it("gives nothing to an account someone registered under the admin's e-mail before it was configured", async () => {
      const env = deploymentEnv(store.env());
      const { PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL: _e, PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD: _p, ...withoutAdmin } = env;
      const open = await startFromEnv(withoutAdmin);
      try {
        const reg = await new Client(open).post('/auth/register', { email: ADMIN.email, password: 'squatter-password' });
        expect(reg.status, reg.text).toBe(201);
      } finally {
        await open.close();
      }
      const configured = await startFromEnv(env);
      try {
        expect((await new Client(configured).post('/auth/session', ADMIN)).status).toBe(401);
        const { client, body } = await signIn(configured, { email: ADMIN.email, password: 'squatter-password' });
        expect(body).toMatchObject({ org_id: null, role: null, is_superadmin: false });
        expect((await client.post('/auth/keys', { role: 'member' })).status).toBe(403);
      } finally {
        await configured.close();
      }
    });
  });
});
