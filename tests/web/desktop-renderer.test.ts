/**
 * The desktop app's renderer over the real bridge, in a browser (issue 10 "Browser tests"): the
 * renderer build (electron-vite's renderer build of apps/desktop/src/renderer: the dashboard with
 * the IPC transport installed first) loaded in Chromium, with `window.planwarden.request` — what
 * the preload exposes — bound through Playwright's exposeFunction to the bridge of a booted
 * desktop core (apps/desktop/src/core/desktop-app.ts on a temporary folder, the fake provider
 * speaking Ollama's wire protocol as the local model). A person drops a corpus plan, analyses it
 * with Ollama, follows the job, triages a finding, downloads the Markdown and HTML reports, reads
 * the Ollama panel, and pushes to a real team server (auth on, a service key) from the Sync panel.
 *
 * Assets are served by `page.route` from the build folder at https://planwarden.test, with the
 * file choice (core/renderer-files.ts) and the CSP of the desktop's `app:` protocol handler; no
 * socket serves them. Every request the page makes is recorded: none may go anywhere else, and
 * none may reach an API over http(s) — the API travels through the bridge only.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDesktopApp, type DesktopApp } from '../../apps/desktop/src/core/desktop-app';
import { RENDERER_CSP, rendererFile } from '../../apps/desktop/src/core/renderer-files';
import { corpusFile } from '../corpus';
import { buildDesktopTarget, buildToolMissing, REPO_ROOT } from '../desktop/build';
import { fakeSafeStorage } from '../desktop/fake-safe-storage';
import { unusedPort } from '../desktop/ports';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { CHROMIUM, launch, newContext, screenshot, seriousViolations } from './browser';

const ORIGIN = 'https://planwarden.test';
const PLAN = 'tfplan-json/checkov-aws-github-oidc-iam-modules.json';
const NAMESPACE = 'laptop-iam';
const BOOTSTRAP = 'bootstrap-key-for-desktop-renderer-test';
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.json': 'application/json' };

const missing = !existsSync(CHROMIUM) ? `Chromium is not installed at ${CHROMIUM}` : buildToolMissing();
if (missing) console.warn(`Skipping the desktop renderer browser test: ${missing}`);

describe.skipIf(missing !== null)('the desktop renderer over the real bridge, in Chromium', () => {
  const outRoot = join(REPO_ROOT, 'apps/desktop/out', `.test-renderer-${process.pid}`);
  const dirs: string[] = [];
  const pageRequests: string[] = [];
  const bridged: string[] = [];
  const scans: Record<string, { id: string }[]> = {};
  let renderer: string;
  let fake: FakeProvider;
  let team: ServerProcess;
  let serviceKey: string;
  let desktopDir: string;
  let desktop: DesktopApp;
  let offline: DesktopApp;
  let browser: Browser;
  let context: BrowserContext;
  let external: string[];
  let page: Page;

  /** A page of the desktop renderer whose `window.planwarden.request` is `app`'s bridge. */
  async function desktopPage(app: DesktopApp): Promise<Page> {
    const p = await context.newPage();
    await p.route(`${ORIGIN}/**`, async (route) => {
      const file = rendererFile(renderer, new URL(route.request().url()).pathname);
      if (file === null) return route.fulfill({ status: 404, body: 'Not found' });
      return route.fulfill({ status: 200, body: readFileSync(file), headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-security-policy': RENDERER_CSP, 'x-content-type-options': 'nosniff' } });
    });
    await p.exposeFunction('planwardenBridge', async (request: { method: string; path: string }) => {
      bridged.push(`${request.method} ${request.path}`);
      return app.bridge(request);
    });
    // What the preload exposes (apps/desktop/src/preload/index.ts): one frozen `request` function.
    await p.addInitScript(`Object.defineProperty(window, 'planwarden', { value: Object.freeze({ request: (r) => window.planwardenBridge(r) }) });`);
    return p;
  }

  async function record(name: string, p: Page = page): Promise<void> {
    await p.locator('#page-title').waitFor();
    scans[name] = await seriousViolations(p);
    await screenshot(p, name);
  }

  const localFindings = async () => JSON.parse((await desktop.bridge({ method: 'GET', path: `/api/v1/findings?namespace=${NAMESPACE}`, headers: {}, body: null })).body).findings as { status: string; resource_hash: string; rule_id: string }[];

  beforeAll(async () => {
    mkdirSync(outRoot, { recursive: true });
    renderer = await buildDesktopTarget('renderer', outRoot);
    fake = await startFakeProvider();
    // The team server runs as its own process, as the README starts it: light-my-request re-parents
    // Express's shared request prototype in the process that injects (the desktop core's bridge).
    const teamDir = mkdtempSync(join(tmpdir(), 'pw-team-'));
    team = await spawnServer({ dataDir: teamDir, fake, env: { PLANWARDEN_AUTH_ENABLED: 'true', PLANWARDEN_AUTH_API_KEY: BOOTSTRAP } });
    const key = await team.api('/auth/keys', { method: 'POST', headers: { 'x-api-key': BOOTSTRAP }, json: { role: 'admin', name: 'laptop-sync' } });
    expect(key.status).toBe(201);
    serviceKey = ((await key.json()) as { key: string }).key;
    const boot = (userDataDir: string, ollamaHost: string) => startDesktopApp({ userDataDir, ollamaHost, safeStorage: fakeSafeStorage(), sleep: async () => {}, pollIntervalMs: 50 });
    desktopDir = mkdtempSync(join(tmpdir(), 'pw-desktop-renderer-'));
    const offlineDir = mkdtempSync(join(tmpdir(), 'pw-desktop-offline-'));
    dirs.push(teamDir, desktopDir, offlineDir);
    desktop = await boot(desktopDir, fake.ollamaHost);
    offline = await boot(offlineDir, `http://127.0.0.1:${await unusedPort()}`);
    browser = await launch();
    ({ context, external } = await newContext(browser));
    context.on('request', (r) => pageRequests.push(`${r.method()} ${r.url()}`));
    page = await desktopPage(desktop);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await desktop?.close();
    await offline?.close();
    await team?.stop();
    await fake?.close();
    rmSync(outRoot, { recursive: true, force: true });
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 120_000);

  it('opens as the local owner, with the desktop-only Sync & Ollama entry in the navigation', async () => {
    await page.goto(`${ORIGIN}/`);
    await page.waitForURL(/\/overview$/);
    await page.getByRole('link', { name: 'Sync & Ollama' }).waitFor();
    await record('desktop-overview');
    expect(bridged).toContain('GET /api/v1/auth/me');
  }, 120_000);

  it('analyses a dropped corpus plan with the local Ollama model and follows the job to the end (also after a reload of the job page)', async () => {
    await page.getByRole('link', { name: 'Analyse' }).click();
    const base64 = corpusFile(PLAN).toString('base64');
    const dataTransfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob('${base64}'), (c) => c.charCodeAt(0))], 'plan.json', { type: 'application/json' }));
      return dt;
    })()`);
    await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer });
    await page.getByText('Loaded plan.json').waitFor();
    await page.getByLabel('Namespace', { exact: true }).fill(NAMESPACE);
    await page.getByLabel('Model', { exact: true }).selectOption('ollama/llama3.1:8b');
    await record('desktop-analyse');
    await page.getByRole('button', { name: 'Run analysis' }).click();
    await page.waitForURL(/\/jobs\//);
    await page.reload(); // a nested client route loads its assets from the root
    await page.getByRole('link', { name: 'Triage the findings' }).waitFor({ timeout: 60_000 });
    await record('desktop-job');
    const ollamaCalls = fake.requests.filter((r) => r.backend === 'ollama' && r.path === '/api/chat');
    expect(ollamaCalls.length).toBeGreaterThanOrEqual(3);
  }, 180_000);

  it('triages a finding, which the local engine records', async () => {
    await page.getByRole('link', { name: 'Triage the findings' }).click();
    await page.locator('tr[data-finding]').first().waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('a');
    await expect.poll(async () => (await localFindings()).filter((f) => f.status === 'acknowledged').length).toBe(1);
    await record('desktop-findings');
  }, 120_000);

  it('downloads the Markdown and HTML reports through the transport', async () => {
    await page.goto(`${ORIGIN}/reports?namespace=${NAMESPACE}`);
    await page.locator('#page-title').waitFor();
    for (const [button, file, expected] of [['Download Markdown', `${NAMESPACE}-report.md`, /^#|\n#/], ['Download HTML', `${NAMESPACE}-report.html`, /<html/i]] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      expect(download.suggestedFilename()).toBe(file);
      const text = readFileSync((await download.path())!, 'utf8');
      expect(text).toMatch(expected);
      expect(text).toContain(NAMESPACE);
    }
    expect(bridged.filter((r) => r.startsWith(`GET /api/v1/${NAMESPACE}/report?`) && r.includes('raw=true'))).toHaveLength(2);
    await record('desktop-reports');
  }, 120_000);

  it('shows the local models Ollama has, and plainly how to start Ollama and pull a model when it is not running', async () => {
    await page.getByRole('link', { name: 'Sync & Ollama' }).click();
    await page.getByRole('tab', { name: 'Ollama (local models)' }).click();
    await page.getByText(`Ollama is running at ${fake.ollamaHost}`).waitFor();
    await page.getByRole('cell', { name: 'llama3.1:8b' }).waitFor();
    await record('desktop-ollama');

    const other = await desktopPage(offline);
    await other.goto(`${ORIGIN}/desktop?tab=ollama`);
    await other.getByText(/^Ollama is not running at http:\/\/127\.0\.0\.1:\d+\.$/).waitFor();
    await other.getByText('ollama pull llama3.1:8b').waitFor();
    expect(await other.getByRole('link', { name: 'https://ollama.com/download' }).getAttribute('target')).toBe('_blank');
    await record('desktop-ollama-missing', other);
    await other.close();
  }, 120_000);

  it('saves the team server and a service key (sealed in the keychain), pushes the namespace once and shows it in the sync log', async () => {
    await page.getByRole('tab', { name: 'Sync to a team' }).click();
    await page.getByText('Save a team server URL and a service key above to push or pull.').waitFor();
    expect(await page.getByRole('button', { name: 'Push', exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Team server URL', { exact: true }).fill(team.url);
    await page.getByLabel('Service key', { exact: true }).fill(serviceKey);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The service key is in the system keychain.').waitFor();
    const keychainFile = readFileSync(join(desktopDir, 'credentials.json'), 'utf8');
    expect(keychainFile).not.toContain(serviceKey);
    expect(readFileSync(join(desktopDir, 'settings.json'), 'utf8')).not.toContain(serviceKey);

    await page.getByRole('checkbox', { name: NAMESPACE }).check();
    await page.getByRole('button', { name: 'Push 1 namespace' }).click();
    await page.getByText(new RegExp(`^${NAMESPACE}: \\d+ analys[ie]s sent, 0 already on the team server`)).waitFor({ timeout: 60_000 });
    await page.locator('table.sync-log tbody tr').first().waitFor();
    const log = await page.locator('table.sync-log tbody tr').allTextContents();
    expect(log.some((row) => row.includes('push') && row.includes('ingest') && row.includes(NAMESPACE))).toBe(true);
    await record('desktop-sync');

    const onTeam = await team.api(`/findings?namespace=${NAMESPACE}&limit=1000`, { headers: { 'x-api-key': serviceKey } });
    const teamFindings = ((await onTeam.json()) as { findings: { resource_hash: string; rule_id: string; status: string }[] }).findings;
    const local = await localFindings();
    expect(teamFindings.map((f) => `${f.resource_hash} ${f.rule_id}`).sort()).toEqual(local.map((f) => `${f.resource_hash} ${f.rule_id}`).sort());
    expect(teamFindings.filter((f) => f.status === 'acknowledged')).toHaveLength(1);
  }, 180_000);

  it('made no request off the page: assets from the renderer origin only, the API over the bridge only', () => {
    expect(external).toEqual([]);
    const elsewhere = pageRequests.filter((r) => !r.split(' ')[1].startsWith(`${ORIGIN}/`) && !/^(data|blob):/.test(r.split(' ')[1]));
    expect(elsewhere).toEqual([]);
    expect(pageRequests.filter((r) => r.includes('/api/'))).toEqual([]);
    expect(pageRequests.every((r) => r.startsWith('GET '))).toBe(true);
    expect(bridged.length).toBeGreaterThan(10);
  });

  it('found no serious or critical axe violation on the desktop pages', () => {
    expect(Object.keys(scans).length).toBeGreaterThanOrEqual(8);
    expect(Object.fromEntries(Object.entries(scans).filter(([, v]) => v.length > 0))).toEqual({});
  });
});
