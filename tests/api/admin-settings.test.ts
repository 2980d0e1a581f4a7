import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';

// Two server processes' worth of state (two in-process servers) on one SQLite data dir: a
// PATCH taken by one must change the other's behaviour on its next request, without a restart.
const dataDir = mkdtempSync(join(tmpdir(), 'pw-settings-'));
let a: TestServer;
let b: TestServer;
const sqlite = { data_dir: dataDir, storage: { backend: 'sqlite' }, registration: { terms_version: 'v1', terms_url: 'https://example.com/terms' } };

beforeAll(async () => {
  a = await startTestServer({ overrides: sqlite });
  b = await startTestServer({ overrides: sqlite });
});
afterAll(async () => {
  await a.close();
  await b.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const json = async (s: TestServer, path: string) => (await s.api(path)).json() as Promise<any>;
const patch = (s: TestServer, json: unknown) => s.api('/admin/settings', { method: 'PATCH', json });

describe('PATCH /admin/settings', () => {
  it('applies on the next request of another replica, and null falls back to the bootstrap value', async () => {
    expect((await json(b, '/auth/registration-options')).allow_public_org_creation).toBe(true);
    const res = await patch(a, { registration_allow_public_org_creation: false, server_max_input_size_mb: 1 });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.effective.registration.allow_public_org_creation).toBe(false);
    expect(doc.overrides).toEqual({ registration_allow_public_org_creation: false, server_max_input_size_mb: 1 });
    expect(doc.sources.registration_terms_url).toBe('bootstrap');
    expect(doc.sources.server_max_input_size_mb).toBe('override');
    expect(doc.sources.session_access_ttl_minutes).toBe('default');

    expect((await json(b, '/auth/registration-options')).allow_public_org_creation).toBe(false);
    // server.max_input_size_mb on the other replica: a 1.5 MB raw_input is now too large (413).
    const big = `# ${'x'.repeat(1_500_000)}\n`;
    const tooLarge = await b.api('/terraform/ns-big/analyze', {
      method: 'POST',
      json: { raw_input: big, llm_backend: 'openai', model: 'gpt-4o', api_key: 'sk-test' },
    });
    expect(tooLarge.status).toBe(413);

    const cleared = (await (await patch(b, { registration_allow_public_org_creation: null, server_max_input_size_mb: null })).json()) as any;
    expect(cleared.overrides).toEqual({});
    expect((await json(a, '/auth/registration-options')).allow_public_org_creation).toBe(true);
  });

  it('answers 422 naming the field for unknown, excluded, rate_limit_enabled and out-of-range values, changing nothing', async () => {
    for (const [body, field] of [
      [{ nonsense_field: 1 }, 'nonsense_field'],
      [{ storage_backend: 'memory' }, 'storage_backend'],
      [{ llm_openai_base_url: 'http://127.0.0.1:1' }, 'llm_openai_base_url'],
      [{ rate_limit_enabled: false }, 'rate_limit_enabled'],
      [{ retention_audit_days: 10 }, 'retention_audit_days'],
      [{ server_max_input_size_mb: 501 }, 'server_max_input_size_mb'],
      [{ logging_level: 'verbose', session_access_ttl_minutes: 60 }, 'logging_level'],
    ] as const) {
      const res = await patch(a, body);
      expect(res.status).toBe(422);
      expect(((await res.json()) as any).detail).toContain(field);
    }
    const doc = (await (await a.api('/admin/settings')).json()) as any;
    expect(doc.effective.session.access_ttl_minutes).toBe(480);
    expect(doc.effective.rate_limit).not.toHaveProperty('enabled');
    expect(doc.excluded_sections.map((s: { section: string }) => s.section)).toEqual(
      expect.arrayContaining(['storage', 'cors', 'auth', 'jwt', 'two_factor', 'llm', 'deployment', 'mcp', 'telemetry']),
    );
  });

  it('stores write-only secrets without ever returning them, and audits settings.update', async () => {
    const res = await patch(a, { codehost_webhook_secret: 'hunter2-very-secret', codehost_app_id: '123' });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain('hunter2');
    const doc = JSON.parse(text);
    expect(doc.secrets_set.codehost_webhook_secret).toBe(true);
    expect(doc.secrets_set.codehost_private_key).toBe(false);
    expect(doc.effective.codehost).toEqual({ app_id: '123' });
    // The other replica's configuration reads the secret on its next request (the code-host webhook is verified with it).
    expect((await b.api('/health')).status).toBe(200);
    expect(b.services.config.codehost.webhook_secret).toBe('hunter2-very-secret');
    const audit = (await (await a.api('/admin/audit?action=settings.update')).json()) as any;
    const last = audit.events[0];
    expect(last.target_type).toBe('platform_settings');
    expect(last.after).toEqual({ codehost_webhook_secret: '[set]', codehost_app_id: '123' });
    expect(JSON.stringify(audit)).not.toContain('hunter2');
  });

  it('pushes retention.telemetry_days and audit_days onto the TTL indexes', async () => {
    expect((await patch(a, { retention_audit_days: 30, retention_telemetry_days: 1 })).status).toBe(200);
    const clock = new Date(Date.now() + 31 * 86_400_000);
    const purged = await b.services.engine.stores.store.purgeExpired(clock);
    expect(purged).toBeGreaterThan(0);
    const remaining = await b.services.engine.stores.store.collection('audit_events').count({});
    expect(remaining).toBe(0);
  });
});
