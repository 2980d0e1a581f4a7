/**
 * The desktop core as the main process runs it (apps/desktop/src/core/desktop-app.ts): the
 * desktop-only routes the dashboard's Sync and Ollama pages call, through the same bridge as the
 * API. The keychain is a stand-in for Electron's safeStorage (tests/desktop/fake-safe-storage.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktopApp, type DesktopApp } from '../../apps/desktop/src/core/desktop-app';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { fakeSafeStorage } from './fake-safe-storage';

const dirs: string[] = [];
let fake: FakeProvider;
let app: DesktopApp;
let noKeychain: DesktopApp;

const call = (target: DesktopApp, method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown) =>
  target
    .bridge({ method, path, headers: { 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) })
    .then((res) => ({ status: res.status, body: JSON.parse(res.body) }));

async function boot(safeStorage = fakeSafeStorage()): Promise<DesktopApp> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-desktop-app-'));
  dirs.push(dir);
  return startDesktopApp({ userDataDir: dir, ollamaHost: fake.ollamaHost, safeStorage, sleep: async () => {}, pollIntervalMs: 50 });
}

beforeAll(async () => {
  fake = await startFakeProvider({ ollamaModels: ['llama3.1:8b', 'qwen2.5-coder:7b'] });
  app = await boot();
  noKeychain = await boot(fakeSafeStorage(false));
}, 60_000);
afterAll(async () => {
  await app?.close();
  await noKeychain?.close();
  await fake?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the desktop-only routes', () => {
  it("GET /api/desktop/ollama lists Ollama's models and offers them on the Analyse page (GET /api/v1/models)", async () => {
    const found = await call(app, 'GET', '/api/desktop/ollama');
    expect(found).toMatchObject({
      status: 200,
      body: { status: 'ready', host: fake.ollamaHost, models: [{ name: 'llama3.1:8b' }, { name: 'qwen2.5-coder:7b' }] },
    });
    const models = (await call(app, 'GET', '/api/v1/models')).body.models as { llm_backend: string; model: string }[];
    expect(models).toContainEqual(expect.objectContaining({ llm_backend: 'ollama', model: 'qwen2.5-coder:7b' }));
  });

  it('refuses a push or pull before a team server is configured (409, saying where to set it)', async () => {
    const push = await call(app, 'POST', '/api/desktop/sync/push', { namespaces: ['x'] });
    expect(push.status).toBe(409);
    expect(push.body.detail).toMatch(/Settings › Sync/);
    expect((await call(app, 'POST', '/api/desktop/sync/pull', {})).status).toBe(409);
    expect((await call(app, 'POST', '/api/desktop/sync/push', { namespaces: [] })).status).toBe(422);
  });

  it('stores the service key sealed in the keychain; a later save without a key keeps it; a first save without one is refused', async () => {
    const first = await call(app, 'PUT', '/api/desktop/sync/settings', { url: 'https://team.example.com' });
    expect(first.status).toBe(409);
    expect(first.body.detail).toMatch(/service key/);

    const saved = await call(app, 'PUT', '/api/desktop/sync/settings', { url: 'https://team.example.com', service_key: 'pw_live_secret_key' });
    expect(saved).toMatchObject({ status: 200, body: { team_url: 'https://team.example.com', has_service_key: true, keychain_unavailable: null } });
    const userData = dirs[0];
    expect(readFileSync(join(userData, 'credentials.json'), 'utf8')).not.toContain('pw_live_secret_key');
    expect(readFileSync(join(userData, 'settings.json'), 'utf8')).not.toContain('pw_live_secret_key');

    const moved = await call(app, 'PUT', '/api/desktop/sync/settings', { url: 'https://planwarden.example.org' });
    expect(moved.body).toMatchObject({ team_url: 'https://planwarden.example.org', has_service_key: true });
    expect(app.team()?.url).toBe('https://planwarden.example.org');
    expect((await call(app, 'GET', '/api/desktop/sync')).body).toMatchObject({
      team_url: 'https://planwarden.example.org',
      has_service_key: true,
      queued: [],
      log: [],
    });
    expect((await call(app, 'PUT', '/api/desktop/sync/settings', { url: 'file:///etc/passwd', service_key: 'k' })).status).toBe(422);
  });

  it('without a usable keychain: says why, refuses to store the key (409), and writes nothing', async () => {
    const status = await call(noKeychain, 'GET', '/api/desktop/sync');
    expect(status.body.keychain_unavailable).toMatch(/not available/);
    const refused = await call(noKeychain, 'PUT', '/api/desktop/sync/settings', { url: 'https://team.example.com', service_key: 'pw_live_secret_key' });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/Cannot store the key securely/);
    expect(existsSync(join(dirs[1], 'credentials.json'))).toBe(false);
    expect(existsSync(join(dirs[1], 'settings.json'))).toBe(false);
  });
});
