/**
 * Issue 9: the integration, identity and platform pages in a real browser against the server
 * started the README's way (child process, throwaway PLANWARDEN_DATA_DIR, auth on, a bootstrap
 * key, the fake LLM provider, egress allowlisting 127.0.0.1 only): the GitHub connection (501
 * explained, the manifest form POSTed to GitHub), Organization → Single sign-on, SCIM,
 * Notifications and Run tasks, the superadmin sign-in settings with the test round trip, and
 * per-organization user administration; keyboard-only passes through a confirmation dialog and a
 * tabbed settings page; the remaining organization tabs, /admin, an invitation and /desktop in a
 * browser. A member sees none of the write controls and the API refuses them anyway. Every page
 * is scanned with axe and saved as a screenshot.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { startFakeDnsServer, type FakeDnsServer } from '../fakes/dns-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { DASHBOARD_DIST } from '../../server/src/http/dashboard';
import { CHROMIUM, launch, newContext } from './browser';
import { apiJson, confirmAction, isFocused, Recorder, registerOverHttp, signIn, tabTo } from './flows';

const BUILT = existsSync(join(DASHBOARD_DIST, 'index.html'));
const BOOTSTRAP = 'bootstrap-key-for-admin-pages';
const OWNER = { email: 'pages-owner@example.com', password: 'correct-horse-1' };
const MEMBER = { email: 'pages-member@example.com', password: 'correct-horse-2' };

describe.skipIf(!existsSync(CHROMIUM) || !BUILT)('integration, identity and platform pages', () => {
  let fake: FakeProvider;
  let dns: FakeDnsServer;
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let orgId: string;
  const recorder = new Recorder();
  const record = (name: string, p: Page = page) => recorder.record(p, name);
  const boot = (method: string, path: string, json?: unknown) => apiJson(server.url, method, path, { key: BOOTSTRAP, json });
  const openModelOption = async () => {
    const select = page.getByLabel('Model', { exact: true });
    const options = await select.locator('option').allTextContents();
    await select.selectOption({ index: options.findIndex((t) => t.startsWith('openai')) });
  };

  beforeAll(async () => {
    fake = await startFakeProvider();
    dns = await startFakeDnsServer();
    dataDir = mkdtempSync(join(tmpdir(), 'planwarden-pages-'));
    server = await spawnServer({
      dataDir,
      fake,
      env: {
        PLANWARDEN_AUTH_ENABLED: 'true',
        PLANWARDEN_AUTH_API_KEY: BOOTSTRAP,
        PLANWARDEN_EGRESS_ALLOWLIST: '127.0.0.1',
        PLANWARDEN_SSO_DNS_SERVERS: dns.address,
      },
    });
    const owner = await registerOverHttp(server.url, OWNER.email, OWNER.password, 'Pages Org');
    orgId = owner.orgId!;
    expect(
      (await apiJson(server.url, 'POST', `/orgs/${orgId}/llm-credentials`, { cookie: owner.cookie, json: { provider: 'openai', api_key: 'sk-pages' } })).status,
    ).toBeLessThan(300);
    const member = await registerOverHttp(server.url, MEMBER.email, MEMBER.password);
    const invite = await apiJson(server.url, 'POST', `/orgs/${orgId}/invites`, { cookie: owner.cookie, json: { email: MEMBER.email, role: 'member' } });
    expect((await apiJson(server.url, 'POST', `/auth/me/invitations/${invite.body.invite_id}/accept`, { cookie: member.cookie, json: {} })).status).toBe(200);
    expect((await boot('POST', `/admin/users/${owner.userId}/superadmin`, { enabled: true })).status).toBe(200);
    browser = await launch();
    ({ context } = await newContext(browser));
    page = await context.newPage();
    await signIn(page, server.url, OWNER.email, OWNER.password);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
    await dns?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('connects GitHub, explains the 501 of the manifest flow, and posts the manifest to GitHub once the public URL is set', async () => {
    await page.goto(`${server.url}/integrations/codehost`);
    await page.getByText('Not connected').waitFor();
    await record('codehost-empty');
    await page.getByLabel('Installation id').fill('424242');
    await openModelOption();
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByText('Connection saved.').waitFor();
    await page.getByText('424242').first().waitFor();

    await page.getByRole('button', { name: 'Create a GitHub App' }).click();
    await page.getByText("The server's operator has to configure this first.").waitFor();
    expect(await page.getByRole('note').innerText()).toContain('server.public_base_url');
    await record('codehost');

    expect((await boot('PATCH', '/admin/settings', { server_public_base_url: server.url })).status).toBe(200);
    // GitHub itself is answered in the browser (nothing leaves the machine): the form must get there.
    const posted: { url: string; method: string; body: string }[] = [];
    await page.route('https://github.com/**', (route) => {
      posted.push({ url: route.request().url(), method: route.request().method(), body: route.request().postData() ?? '' });
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>GitHub</title><main><h1>Create GitHub App</h1></main>' });
    });
    await page.getByRole('button', { name: 'Create a GitHub App' }).click();
    await page.waitForURL(/^https:\/\/github\.com\/settings\/apps\/new\?state=/);
    expect(posted).toHaveLength(1);
    expect(posted[0].method).toBe('POST');
    const manifest = JSON.parse(new URLSearchParams(posted[0].body).get('manifest')!) as { redirect_url: string; hook_attributes: { url: string } };
    expect(manifest.redirect_url).toBe(`${server.url}/api/v1/integrations/codehost/manifest/callback`);
    expect(manifest.hook_attributes.url).toBe(`${server.url}/api/v1/integrations/codehost/webhook`);
    await page.unroute('https://github.com/**');
    expect((await boot('PATCH', '/admin/settings', { server_public_base_url: null })).status).toBe(200);

    // GitHub's setup redirect refused (the server sends the browser back with the reason).
    await page.goto(
      `${server.url}/integrations/codehost?setup_error=${encodeURIComponent('installation 7 is not an installation of this organization’s GitHub App.')}`,
    );
    await page.getByRole('alert').getByText('the installation was not connected: installation 7 is not an installation').waitFor();
    await page.goto(`${server.url}/integrations/codehost?app_created=1`);
    await page.getByText('Your GitHub App was created.').waitFor();
    await confirmAction(page, 'Disconnect');
    await page.getByText('Not connected').waitFor();
  }, 180_000);

  it('Single sign-on: the egress refusal shows on the issuer field, then the connection saves with its secret write-only', async () => {
    await page.goto(`${server.url}/organization?tab=sso`);
    await page.getByText('No single sign-on connection').waitFor();
    await page.getByLabel('Display name').fill('Example IdP');
    await page.getByLabel('Issuer URL').fill('https://10.1.2.3');
    await page.getByLabel('Client id').fill('planwarden');
    await page.getByLabel('Client secret').fill('sso-secret-value');
    await page.getByLabel('Allowed e-mail domains').fill('example.test');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(() => page.getByLabel('Issuer URL').getAttribute('aria-invalid')).toBe('true');
    await record('organization-sso-error');
    await page.getByLabel('Issuer URL').fill('https://idp.example.test');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByText('Connected since').waitFor();
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    // With the page's own session (the bootstrap key belongs to the default org, which answers 404).
    const response = await page.request.get(`${server.url}/api/v1/orgs/${orgId}/sso`);
    expect(response.status()).toBe(200);
    const stored = { body: await response.json() };
    expect(JSON.stringify(stored.body)).not.toContain('sso-secret-value');

    // The domain is pending: the page gives the TXT record to publish, and Verify now says what it found.
    const txt = stored.body.domains[0] as { txt_record_name: string; txt_record_value: string };
    await page.getByText(txt.txt_record_value).waitFor();
    await page.getByText(txt.txt_record_name).waitFor();
    await page.getByRole('button', { name: 'Verify now (example.test)' }).click();
    await page.getByText('Not verified: No TXT record found at _planwarden-challenge.example.test').waitFor();
    await record('organization-sso');
    dns.txt.set(txt.txt_record_name, [[txt.txt_record_value]]);
    await page.getByRole('button', { name: 'Verify now (example.test)' }).click();
    await page.getByText('example.test is verified').waitFor();
    await page.getByText('Verified through DNS on').waitFor();
    expect(await page.getByRole('button', { name: 'Verify now (example.test)' }).count()).toBe(0);
    await record('organization-sso-verified');
  }, 180_000);

  it('SCIM: enabling shows the token once; rotating by keyboard replaces it', async () => {
    await page.goto(`${server.url}/organization?tab=scim`);
    await page.getByText('SCIM is not set up').waitFor();
    await page.getByRole('button', { name: 'Add mapping' }).click();
    await page.getByLabel('Group pattern 1').fill('^platform-admins$');
    await page.getByLabel('Role 1', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Enable SCIM' }).click();
    const first = (await page.getByTestId('scim-token').innerText()).trim();
    expect(first.length).toBeGreaterThan(20);
    await page.getByText('Tenant URL').waitFor();
    await record('organization-scim');
    await page.getByRole('button', { name: 'Rotate token' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Enter'); // the dialog focuses its confirm button first
    await expect.poll(async () => (await page.getByTestId('scim-token').innerText()).trim()).not.toBe(first);
  }, 180_000);

  it('Notifications: the egress 422 is shown on the URL field; a channel is added and tested', async () => {
    await page.goto(`${server.url}/organization?tab=notifications`);
    await page.getByText('No notification channel').waitFor();
    const form = page.getByRole('form', { name: 'New channel' });
    await form.getByLabel('Label').fill('Security hooks');
    await form.getByLabel('Target URL').fill('http://10.0.0.1/hook');
    await form.getByRole('button', { name: 'Add channel' }).click();
    await expect.poll(() => form.getByLabel('Target URL').getAttribute('aria-invalid')).toBe('true');
    await record('organization-notifications-error');
    await form.getByLabel('Target URL').fill(`${fake.url}/hook`);
    await form.getByRole('button', { name: 'Add channel' }).click();
    await page.getByText('Channel Security hooks added.').waitFor();
    await page.getByRole('button', { name: 'Send a test to Security hooks' }).click();
    await page.getByText(/^Test (delivered|not delivered)/).waitFor();
    await record('organization-notifications');
    const listed = await apiJson(server.url, 'GET', `/orgs/${orgId}/notifications/channels`, { key: BOOTSTRAP });
    expect(JSON.stringify(listed.body)).not.toContain(`${fake.url}/hook`);
  }, 180_000);

  it('keyboard only: a confirmation dialog opens on Enter, Escape cancels it, focus stays trapped, Enter confirms', async () => {
    await page.goto(`${server.url}/organization?tab=notifications`);
    const remove = page.getByRole('button', { name: 'Delete Security hooks' });
    await remove.waitFor();
    await tabTo(page, remove);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete the channel "Security hooks"?' });
    const confirm = dialog.getByRole('button', { name: 'Delete', exact: true });
    await expect.poll(() => isFocused(confirm)).toBe(true);
    await record('notifications-delete-confirm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => isFocused(remove)).toBe(true); // focus returns to the button that opened it
    await page.keyboard.press('Enter');
    await expect.poll(() => isFocused(confirm)).toBe(true);
    await page.keyboard.press('Tab');
    expect(await isFocused(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await page.keyboard.press('Tab'); // trapped: wraps to the first button, never the page behind
    expect(await isFocused(confirm)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText('No notification channel').waitFor();
    const listed = await apiJson(server.url, 'GET', `/orgs/${orgId}/notifications/channels`, { key: BOOTSTRAP });
    expect(JSON.stringify(listed.body)).not.toContain('Security hooks');
  }, 180_000);

  it('Run tasks: saves the settings and shows the endpoint URL to paste into HCP Terraform', async () => {
    await page.goto(`${server.url}/organization?tab=run-tasks`);
    await page.getByText('No run task').waitFor();
    await page.getByLabel('HMAC key').fill('k'.repeat(32));
    await openModelOption();
    await page.getByRole('button', { name: 'Set up run task' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await page.getByTestId('run-task-url').innerText()).toBe(`${server.url}/api/v1/run-tasks/${orgId}`);
    await record('organization-run-tasks');
  }, 180_000);

  it('sign-in settings: tabs in the URL, the test round trip comes back with its result, secrets stay write-only', async () => {
    await page.goto(`${server.url}/admin/settings/sign-in`);
    await page.getByRole('tab', { name: 'General', selected: true }).waitFor();
    await record('sign-in-settings-general');
    await page.getByRole('tab', { name: 'Google' }).click();
    await page.waitForURL(/tab=google/);
    await page.getByRole('link', { name: 'Test Google sign-in' }).click();
    await page.waitForURL(/test=not_configured/);
    await page.getByTestId('social-test-result').waitFor();
    expect(await page.getByTestId('social-test-result').innerText()).toContain('not configured');
    await record('sign-in-settings-test');
    await page.getByLabel('Client id').fill('google-client-id');
    await page.getByLabel('Client secret').fill('google-secret-value');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByText('A secret is stored').waitFor();
    expect(JSON.stringify((await boot('GET', '/admin/settings')).body)).not.toContain('google-secret-value');
    await page.getByRole('tab', { name: 'Microsoft' }).click();
    await page.getByLabel('Tenant').waitFor();
    await record('sign-in-settings-microsoft');
  }, 180_000);

  it('keyboard only: the sign-in settings tabs switch with the arrow keys and a form saves with Enter', async () => {
    await page.goto(`${server.url}/admin/settings/sign-in`);
    const general = page.getByRole('tab', { name: 'General', selected: true });
    await general.waitFor();
    await tabTo(page, general);
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/tab=google/);
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/tab=microsoft/);
    expect(await isFocused(page.getByRole('tab', { name: 'Microsoft', selected: true }))).toBe(true);
    await tabTo(page, page.getByLabel('Tenant'));
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('organizations');
    await page.keyboard.press('Enter');
    await page.getByText('Saved.').waitFor();
    const settings = await boot('GET', '/admin/settings');
    expect(settings.body.effective.social_login.microsoft_tenant).toBe('organizations');
    await record('sign-in-settings-keyboard');
  }, 180_000);

  it('every remaining page passes axe: the other organization tabs, /admin, an invitation and /desktop in a browser', async () => {
    for (const tab of ['teams', 'invitations', 'analyzers', 'settings']) {
      await page.goto(`${server.url}/organization?tab=${tab}`);
      await page.locator('#page-title').waitFor();
      await record(`organization-${tab}`);
    }
    await page.goto(`${server.url}/admin`);
    await page.getByLabel('Organization to manage').waitFor();
    await record('admin');
    await page.goto(`${server.url}/desktop`);
    await page.getByText('Only in the desktop app.').waitFor();
    await record('desktop-browser');
    const token = await page.evaluate(async (org) => {
      const res = await fetch(`/api/v1/orgs/${org}/invites`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'viewer' }),
      });
      return ((await res.json()) as { token: string }).token;
    }, orgId);
    await page.goto(`${server.url}/invite/${token}`);
    await page.getByText('You are invited to').waitFor();
    await record('invite');
  }, 180_000);

  it('superadmin users: per organization, a password reset shows the temporary password once; deactivation asks first', async () => {
    await page.goto(`${server.url}/admin`);
    await page.getByLabel('Organization to manage').selectOption({ label: 'Pages Org' });
    await page.getByRole('button', { name: `Manage ${MEMBER.email}` }).click();
    await confirmAction(page, 'Reset password');
    const temporary = (await page.getByTestId('temporary-password').innerText()).trim();
    expect(temporary.length).toBeGreaterThanOrEqual(12);
    await record('admin-users');
    const signedIn = await apiJson(server.url, 'POST', '/auth/session', { json: { email: MEMBER.email, password: temporary } });
    expect(signedIn.status).toBe(200);
    await confirmAction(page, 'Deactivate account');
    await page.getByRole('cell', { name: 'deactivated' }).waitFor();
    expect((await apiJson(server.url, 'POST', '/auth/session', { json: { email: MEMBER.email, password: temporary } })).status).toBe(401);
    await confirmAction(page, 'Reactivate account');
    await page.getByRole('cell', { name: 'active', exact: true }).waitFor();
  }, 180_000);

  it('a member sees none of these controls, and the API refuses the writes anyway', async () => {
    const { context: other } = await newContext(browser);
    const member = await other.newPage();
    const temporary = await (async () => {
      const reset = await boot(
        'POST',
        `/admin/users/${(await apiJson(server.url, 'GET', `/admin/organizations/${orgId}/members`, { key: BOOTSTRAP })).body.members.find((m: { email: string }) => m.email === MEMBER.email).user_id}/reset-password`,
      );
      return reset.body.temporary_password as string;
    })();
    await signIn(member, server.url, MEMBER.email, temporary);
    await member.goto(`${server.url}/organization`);
    await member.locator('#page-title').waitFor();
    for (const tab of ['Single sign-on', 'SCIM', 'Notifications', 'Run tasks']) expect(await member.getByRole('tab', { name: tab }).count()).toBe(0);
    await member.goto(`${server.url}/integrations/codehost`);
    await member.getByText('Only organization admins and owners connect GitHub.').waitFor();
    expect(
      await member
        .getByRole('button')
        .filter({ hasText: /Connect|Create a GitHub App/ })
        .count(),
    ).toBe(0);
    await record('codehost-member', member);
    await member.goto(`${server.url}/reports`);
    await member.locator('#page-title').waitFor();
    expect(await member.getByRole('heading', { name: 'Public links' }).count()).toBe(0);
    const refused = await member.evaluate(
      async (org) =>
        Promise.all(
          [
            fetch(`/api/v1/orgs/${org}/integrations/codehost`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ llm_backend: 'openai', model: 'gpt-4o-mini' }),
            }),
            fetch(`/api/v1/orgs/${org}/scim/rotate-token`, { method: 'POST', headers: { 'content-type': 'application/json' } }),
            fetch(`/api/v1/orgs/${org}/report-links`),
            fetch('/api/v1/admin/settings', {
              method: 'PATCH',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ social_login_enabled: true }),
            }),
          ].map((p) => p.then((r) => r.status)),
        ),
      orgId,
    );
    expect(refused).toEqual([403, 403, 403, 403]);
    await other.close();
  }, 180_000);

  it('found no serious or critical axe violation on any page', () => {
    recorder.expectClean(21);
  });
});
