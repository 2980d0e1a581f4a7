import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationPayload, signWebhook, startFakeGitHub, type FakeGitHub } from '../fakes/github';
import { startTestServer, type TestServer } from '../helpers/test-server';

const CONFIG = '/orgs/default/integrations/codehost';
let server: TestServer;
let gh: FakeGitHub;
let clock = new Date('2026-03-01T10:00:00Z');

beforeAll(async () => {
  gh = await startFakeGitHub();
  server = await startTestServer({
    overrides: {
      server: { host: '127.0.0.1', port: 0, public_base_url: 'https://pw.example', dashboard_base_url: 'https://dash.example' },
      codehost: { webhook_secret: 'platform-secret', api_base_url: gh.url },
    },
    start: { now: () => clock },
  });
});
afterAll(async () => {
  await server.close();
  await gh.close();
});

const callback = (code: string, state: string) =>
  server.api(`/integrations/codehost/manifest/callback?code=${code}&state=${encodeURIComponent(state)}`, { redirect: 'manual' });

function webhook(event: string, payload: unknown, secret: string) {
  const body = JSON.stringify(payload);
  return server.api('/integrations/codehost/webhook', {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'X-GitHub-Event': event,
      'X-GitHub-Delivery': `m-${Math.random()}`,
      'X-Hub-Signature-256': signWebhook(secret, body),
    },
  });
}

describe("the org's own app through the manifest flow", () => {
  it('501 without server.public_base_url', async () => {
    const saved = server.config.server.public_base_url;
    server.config.server.public_base_url = null;
    expect((await server.api(`${CONFIG}/manifest`, { method: 'POST' })).status).toBe(501);
    server.config.server.public_base_url = saved;
  });

  it('creates the app, stores its credentials sealed, connects the installation from its event', async () => {
    const res = await server.api(`${CONFIG}/manifest`, { method: 'POST' });
    expect(res.status).toBe(200);
    const { manifest, state, target_url } = (await res.json()) as { manifest: Record<string, any>; state: string; target_url: string };
    expect(manifest).toMatchObject({
      hook_attributes: { url: 'https://pw.example/api/v1/integrations/codehost/webhook' },
      redirect_url: 'https://pw.example/api/v1/integrations/codehost/manifest/callback',
      public: false,
    });
    expect(target_url).toBe(`https://github.com/settings/apps/new?state=${encodeURIComponent(state)}`);
    gh.addManifestCode('code-1', 9191, 'acme-planwarden');
    const done = await callback('code-1', state);
    expect(done.status).toBe(307);
    expect(done.headers.get('location')).toBe('https://dash.example/integrations/codehost?app_created=1');
    // Single use.
    gh.addManifestCode('code-2', 9192, 'again');
    expect((await callback('code-2', state)).status).toBe(400);
    const config = (await (await server.api(CONFIG)).json()) as Record<string, any>;
    expect(config).toMatchObject({
      installation_id: null,
      codehost_app: { app_id: '9191', app_slug: 'acme-planwarden', html_url: 'https://github.com/apps/acme-planwarden' },
    });
    const stored = JSON.stringify(await server.services.engine.stores.store.collection('codehost_integrations').find({}));
    expect(stored).not.toContain('BEGIN PRIVATE KEY');
    expect(stored).not.toContain('whsec-acme-planwarden');
    // The installation event is verified with the org's own secret, not the platform's.
    gh.addInstallation(313, 9191);
    expect((await webhook('installation', installationPayload('created', 313, 9191), 'platform-secret')).status).toBe(401);
    // A signed event naming an installation GitHub does not know for this app binds nothing.
    const unknown = await webhook('installation', installationPayload('created', 314, 9191), 'whsec-acme-planwarden');
    expect(await unknown.json()).toEqual({ detail: "Ignored: installation unknown to the organization's app" });
    expect(await (await server.api(CONFIG)).json()).toMatchObject({ installation_id: null });
    expect((await webhook('installation', installationPayload('created', 313, 9191), 'whsec-acme-planwarden')).status).toBe(200);
    expect(await (await server.api(CONFIG)).json()).toMatchObject({ installation_id: '313' });
    expect((await webhook('installation', installationPayload('deleted', 313, 9191), 'whsec-acme-planwarden')).status).toBe(200);
    expect(await (await server.api(CONFIG)).json()).toMatchObject({ installation_id: null });
    expect((await server.api(`${CONFIG}/app`, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(`${CONFIG}/app`, { method: 'DELETE' })).status).toBe(404);
    expect((await server.api(CONFIG, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(CONFIG, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses an unknown or expired state and a code the code host refuses with 400', async () => {
    expect((await callback('x', 'not-a-state')).status).toBe(400);
    const { state } = (await (await server.api(`${CONFIG}/manifest`, { method: 'POST' })).json()) as { state: string };
    expect((await callback('unknown-code', state)).status).toBe(400);
    const { state: late } = (await (await server.api(`${CONFIG}/manifest`, { method: 'POST' })).json()) as { state: string };
    clock = new Date(clock.getTime() + 11 * 60_000);
    gh.addManifestCode('code-late', 9193, 'late');
    expect((await callback('code-late', late)).status).toBe(400);
  });

  it('501 when a webhook has no secret to be checked with', async () => {
    const saved = server.config.codehost.webhook_secret;
    server.config.codehost.webhook_secret = null;
    expect((await webhook('pull_request', { action: 'opened', installation: { id: 1 } }, 'anything')).status).toBe(501);
    server.config.codehost.webhook_secret = saved;
  });
});
