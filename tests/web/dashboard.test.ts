/**
 * The web dashboard (issue 9) in a real browser against the real server started the README's
 * way (`npm start` as a child process: tests/helpers/server-process.ts, with PLANWARDEN_DATA_DIR
 * a throwaway directory, PLANWARDEN_PORT, auth on, and the LLM providers' base URLs pointing at
 * the fake provider): a new user registers, creates an org, stores a credential, drops a corpus
 * plan, watches the job finish, triages three findings by keyboard, sees the overview counts
 * change, opens a pasted /findings?namespace=… link, opens a public report link logged out and
 * revokes it, creates a service key and uses it from Node's fetch as curl would; a viewer sees
 * no write controls and the API refuses the write anyway; every page passes axe (no
 * serious/critical violation) and is saved as a screenshot under tests/web/artifacts/.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { startTestServer } from '../helpers/test-server';
import { buildServer, isStale } from '../../server/scripts/build.mjs';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { DASHBOARD_CSP, DASHBOARD_DIST, dashboardCsp, dashboardRouter } from '../../server/src/http/dashboard';
import { docsRouter } from '../../server/src/http/docs';
import { launch, newContext, CHROMIUM } from './browser';
import { apiJson, dropCorpusPlan, Recorder, registerOverHttp, signIn } from './flows';

const BUILT = existsSync(join(DASHBOARD_DIST, 'index.html'));
const PLAN = 'tfplan-json/checkov-aws-github-oidc-iam-modules.json';
const NAMESPACE = 'pr-acme-api-42';
const OWNER = { email: 'owner@example.com', password: 'correct-horse-1' };

describe.skipIf(!existsSync(CHROMIUM) || !BUILT)('the web dashboard in a browser', () => {
  let fake: FakeProvider;
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let owner: BrowserContext;
  let page: Page;
  const recorder = new Recorder();
  const record = (name: string, p: Page = page) => recorder.record(p, name);

  beforeAll(async () => {
    fake = await startFakeProvider();
    dataDir = mkdtempSync(join(tmpdir(), 'planwarden-web-'));
    // The README's way: `npm start` runs the compiled bundle (built here when stale, as start.mjs does).
    if (isStale()) await buildServer();
    server = await spawnServer({ dataDir, fake, entry: 'compiled', env: { PLANWARDEN_AUTH_ENABLED: 'true' } });
    browser = await launch();
    ({ context: owner } = await newContext(browser));
    page = await owner.newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 180_000);

  it('serves the dashboard at / and its client routes with a CSP that forbids inline scripts, never shadowing the API', async () => {
    for (const path of [
      '/',
      '/login',
      '/overview',
      '/findings?namespace=x',
      '/admin/settings/sign-in?tab=github',
      '/integrations/codehost',
      '/onboarding',
      '/account',
    ]) {
      const res = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain('<div id="root">');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toBe(DASHBOARD_CSP);
      expect(/script-src[^;]*unsafe-inline/.test(csp)).toBe(false);
    }
    expect((await fetch(`${server.url}/api/v1/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/health`)).headers.get('content-type')).toContain('json');
    expect((await fetch(`${server.url}/assets/missing.js`)).status).toBe(404);
  }, 180_000);

  it('lets forms post to a GitHub Enterprise host configured as codehost.web_base_url, and to no other', async () => {
    const ghe = await startTestServer({ overrides: { codehost: { web_base_url: 'https://ghe.example.test/github/' } } });
    const { context } = await newContext(browser);
    try {
      const csp = (await fetch(`${ghe.url}/integrations/codehost`, { headers: { accept: 'text/html' } })).headers.get('content-security-policy') ?? '';
      expect(csp).toContain("form-action 'self' https://ghe.example.test;");
      expect(csp).not.toContain('https://github.com');
      // The manifest flow's top-level form POST, answered in the browser (nothing leaves the machine).
      const page = await context.newPage();
      const posted: string[] = [];
      await page.route(/^https:\/\/(ghe\.example\.test|github\.com)\//, (route) => {
        posted.push(route.request().url());
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>GHE</title>' });
      });
      await page.goto(`${ghe.url}/integrations/codehost`);
      // Resolves with the directive the CSP reports as violated, or 'none' after 5 s.
      const submit = (action: string) =>
        page.evaluate(`new Promise((resolve) => {
        document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true });
        setTimeout(() => resolve('none'), 5000);
        const form = Object.assign(document.createElement('form'), { method: 'post', action: ${JSON.stringify(action)} });
        form.append(Object.assign(document.createElement('input'), { name: 'manifest', value: '{}' }));
        document.body.append(form);
        form.submit();
      })`);
      expect(await submit('https://github.com/settings/apps/new?state=x')).toBe('form-action'); // not the configured host
      void submit('https://ghe.example.test/settings/apps/new?state=y').catch(() => undefined); // the page navigates away
      await page.waitForURL(/^https:\/\/ghe\.example\.test\//);
      expect(posted).toEqual(['https://ghe.example.test/settings/apps/new?state=y']);
    } finally {
      await context.close();
      await ghe.close();
    }
    // A value that would smuggle in directives never becomes a policy (the server refuses to start).
    for (const bad of ['https://ghe.example.test;script-src:', 'javascript:alert(1)', 'not a url'])
      expect(() => dashboardCsp(bad), bad).toThrow(/codehost.web_base_url/);
  }, 180_000);

  it('falls back to the landing page when the dashboard build is missing', async () => {
    const app = express()
      .use('/', dashboardRouter({ config: { codehost: { web_base_url: 'https://github.com' } }, dist: '/nonexistent-dist' }))
      .use('/', docsRouter([], '/api/v1'));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((r) => listener.once('listening', r));
    const { port } = listener.address() as { port: number };
    const html = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    listener.close();
    expect(html).toContain('href="/api/v1/docs"');
  }, 180_000);

  it('sends a signed-out visitor to /login and back; registration leads to onboarding and an org', async () => {
    await page.goto(`${server.url}/findings?namespace=${NAMESPACE}`);
    await page.waitForURL(/\/login\?next=/);
    await record('login');
    await page.getByRole('link', { name: 'Create one' }).click();
    // The sign-in form stays on screen while the registration page loads; type into the new one.
    await page.getByRole('heading', { name: 'Create your Planwarden account' }).waitFor();
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await record('register');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/onboarding/);
    await record('onboarding');
    await page.getByLabel('Organization name').fill('Acme');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.waitForURL(/\/overview/);
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeTruthy();
    // No token in script-readable storage: the session is the httpOnly cookie.
    const stored = (await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie')) as string;
    expect(stored).not.toMatch(/mcp_session|eyJ/);
    const cookie = (await owner.cookies()).find((c) => c.name === 'mcp_session');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toMatch(/Lax|Strict/);
  }, 180_000);

  it('stores a credential, drops a corpus plan and follows the job until it finishes', async () => {
    await page.goto(`${server.url}/organization?tab=credentials`);
    await page.getByLabel('API key').fill('sk-test-dashboard');
    await page.getByRole('button', { name: 'Store credential' }).click();
    await page.getByText('Credential stored.').waitFor();
    await page.locator('li', { hasText: 'stored' }).first().waitFor();
    await record('organization-credentials');

    await page.goto(`${server.url}/analyse`);
    await dropCorpusPlan(page, PLAN);
    await page.getByLabel('Namespace', { exact: true }).fill(NAMESPACE);
    await page
      .getByLabel('Model', { exact: true })
      .selectOption({ index: (await page.getByLabel('Model', { exact: true }).locator('option').allTextContents()).findIndex((t) => t.startsWith('openai')) });
    await record('analyse');
    await page.getByRole('button', { name: 'Run analysis' }).click();
    await page.waitForURL(/\/jobs\//);
    await page.getByRole('link', { name: 'Triage the findings' }).waitFor({ timeout: 30_000 });
    await record('job-detail');
    expect(fake.requests.length).toBeGreaterThanOrEqual(3);
  }, 180_000);

  it('triages three findings by keyboard, one a false positive with a reason', async () => {
    await page.getByRole('link', { name: 'Triage the findings' }).click();
    await page.waitForURL(new RegExp(`/findings\\?namespace=${NAMESPACE}`));
    await page.locator('tr[data-finding]').first().waitFor();
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await record('findings-help');
    await page.keyboard.press('Escape');
    await page.keyboard.press('j'); // opens the first finding
    await page.keyboard.press('a'); // acknowledged; the next finding opens
    await page.keyboard.press('s'); // suppress: the form asks for a reason first
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('SELECT');
    await page.keyboard.press('Control+Enter'); // saved; the next finding opens
    await page.keyboard.press('f');
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('SELECT');
    await page.getByLabel('Note').fill('the bucket is public on purpose');
    await page.getByRole('button', { name: 'Save triage' }).click();
    await page.getByTestId('undo-toast').getByText('marked false positive').waitFor();
    await page.locator('.unit-body').waitFor();
    await record('findings');
    const list = await page.evaluate(
      async (ns) => (await (await fetch(`/api/v1/findings?namespace=${ns}`)).json()) as { findings: { status: string }[] },
      NAMESPACE,
    );
    const statuses = list.findings.map((f) => f.status).sort();
    expect(statuses.filter((s) => s !== 'open')).toEqual(['acknowledged', 'false_positive', 'suppressed']);
    const feedback = await page.evaluate(
      async () => (await (await fetch('/api/v1/feedback?source=dashboard_triage')).json()) as { feedback: { reason_code: string | null }[] },
    );
    expect(feedback.feedback.map((f) => f.reason_code)).toContain('false_positive');
  }, 180_000);

  it('shows the changed counts on the overview and opens a pasted findings link', async () => {
    await page.goto(`${server.url}/overview`);
    for (const status of ['acknowledged', 'suppressed', 'false_positive'])
      await expect.poll(() => page.locator(`[data-count="${status}"]`).textContent()).toBe('1');
    await record('overview');
    const pasted = await owner.newPage();
    await pasted.goto(`${server.url}/findings?namespace=${NAMESPACE}&status=false_positive`);
    await pasted.locator('tr[data-finding]').first().waitFor();
    expect(await pasted.locator('tr[data-finding]').count()).toBe(1);
    await pasted.close();
  }, 180_000);

  it('renders the other pages with their states and no serious accessibility violation', async () => {
    for (const [name, path] of [
      ['jobs', '/jobs'],
      ['reports', `/reports?namespace=${NAMESPACE}`],
      ['rules', '/rules'],
      ['rules-custom', '/rules?tab=custom'],
      ['rule-health', '/rules?tab=health'],
      ['proposals', '/rules?tab=proposals'],
      ['templates', '/templates'],
      ['organization', '/organization'],
      ['organization-keys', '/organization?tab=keys'],
      ['audit', '/organization?tab=audit'],
      ['account', '/account'],
      ['integrations', '/integrations/codehost'],
      ['sign-in-settings', '/admin/settings/sign-in?tab=github'],
      ['not-found', '/no-such-page'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.locator('#page-title').waitFor();
      await record(name);
    }
  }, 180_000);

  it('creates a public report link, opens it logged out, and after revoking it the link answers like an unknown one', async () => {
    await page.goto(`${server.url}/reports?namespace=${NAMESPACE}`);
    await page.getByRole('button', { name: 'Create public link' }).click();
    const link = await page.getByTestId('public-link').getAttribute('href');
    const anonymous = await newContext(browser);
    const pub = await anonymous.context.newPage();
    expect((await pub.goto(link!))?.status()).toBe(200);
    expect(await pub.content()).toContain(NAMESPACE);

    const row = page.getByRole('row', { name: new RegExp(NAMESPACE) });
    await row.waitFor();
    await record('reports-links');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').waitFor();
    await record('reports-revoke-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Link revoked.').waitFor();
    await page.getByText('No public link is open').waitFor();

    const revoked = await pub.goto(link!);
    const unknown = await fetch(`${server.url}/api/v1/reports/${'A'.repeat(43)}`);
    expect(revoked?.status()).toBe(404);
    expect(await revoked!.text()).toBe(await unknown.text());
    await anonymous.context.close();
  }, 180_000);

  it('creates a service key in the dashboard and uses it from Node fetch like curl', async () => {
    await page.goto(`${server.url}/organization?tab=keys`);
    await page.getByLabel('Key name').fill('ci-from-fetch');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').innerText()).trim();
    expect(key).toMatch(/^pwk_/);
    const findings = await apiJson(server.url, 'GET', `/findings?namespace=${NAMESPACE}`, { key });
    expect(findings.status).toBe(200);
    expect(findings.body.findings.length).toBeGreaterThan(0);
    expect((await apiJson(server.url, 'GET', '/findings', { key: `${key}x` })).status).toBe(401);
  }, 180_000);

  it('a viewer sees no write controls, and the API refuses the write anyway', async () => {
    const viewerUser = await registerOverHttp(server.url, 'viewer@example.com', 'correct-horse-1');
    const invited = await page.evaluate(async () => {
      const me = (await (await fetch('/api/v1/auth/me')).json()) as { org_id: string };
      const res = await fetch(`/api/v1/orgs/${me.org_id}/invites`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'viewer@example.com', role: 'viewer' }),
      });
      return (await res.json()) as { invite_id: string };
    });
    expect((await apiJson(server.url, 'POST', `/auth/me/invitations/${invited.invite_id}/accept`, { cookie: viewerUser.cookie, json: {} })).status).toBe(200);
    const { context } = await newContext(browser);
    const viewer = await context.newPage();
    await signIn(viewer, server.url, 'viewer@example.com', 'correct-horse-1', `/findings?namespace=${NAMESPACE}`);
    await viewer.waitForURL(/\/findings\?namespace=/);
    await viewer.locator('#page-title').waitFor();
    await viewer.waitForLoadState('networkidle');
    expect(await viewer.locator('input[type=checkbox]').count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Save triage' }).count()).toBe(0);
    expect(await viewer.getByRole('link', { name: 'Analyse' }).count()).toBe(0);
    await record('findings-viewer', viewer);
    const target = await page.evaluate(
      async (ns) =>
        ((await (await fetch(`/api/v1/findings?namespace=${ns}`)).json()) as { findings: { resource_hash: string; rule_id: string }[] }).findings[0],
      NAMESPACE,
    );
    const refused = await viewer.evaluate(
      async (f) =>
        (
          await fetch(`/api/v1/findings/${f.resource_hash}/${f.rule_id}`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ status: 'suppressed' }),
          })
        ).status,
      target,
    );
    expect(refused).toBe(403);
    await context.close();
  }, 180_000);

  it('found no serious or critical axe violation on any page', () => {
    recorder.expectClean(22);
  });
});
