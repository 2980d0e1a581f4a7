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
 * The setup (renderer build, page routes, the bridge binding, the team server) is
 * desktop-harness.ts's, shared with desktop-sync.test.ts. Every request the page makes is
 * recorded: none may go anywhere else, and none may reach an API over http(s) — the API travels
 * through the bridge only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { DesktopApp } from '../../apps/desktop/src/core/desktop-app';
import { unusedPort } from '../desktop/ports';
import type { FakeProvider } from '../fakes/llm-provider-server';
import { desktopBrowserMissing, dropCorpusPlan, ORIGIN, startDesktopWorld, type DesktopHarness, type DesktopWorld, type TeamServer } from './desktop-harness';

const PLAN = 'tfplan-json/checkov-aws-github-oidc-iam-modules.json';
const NAMESPACE = 'laptop-iam';
/** The dashboard's team-server pages, never offered in the desktop (one local user, no port, no sign-in). */
const TEAM_ONLY_NAV = ['Administration', 'Integrations'];
const TEAM_ONLY_TABS = ['Invitations', 'Service keys', 'Single sign-on', 'SCIM', 'Run tasks'];

if (desktopBrowserMissing) console.warn(`Skipping the desktop renderer browser test: ${desktopBrowserMissing}`);

describe.skipIf(desktopBrowserMissing !== null)('the desktop renderer over the real bridge, in Chromium', () => {
  let world: DesktopWorld;
  let h: DesktopHarness;
  let fake: FakeProvider;
  let team: TeamServer;
  let desktop: DesktopApp & { userDataDir: string };
  let offline: DesktopApp;
  let page: Page;

  const record = (name: string, p: Page = page) => h.record(name, p);
  const localFindings = async () =>
    JSON.parse((await desktop.bridge({ method: 'GET', path: `/api/v1/findings?namespace=${NAMESPACE}`, headers: {}, body: null })).body).findings as {
      status: string;
      resource_hash: string;
      rule_id: string;
    }[];

  beforeAll(async () => {
    world = await startDesktopWorld();
    ({ h, fake, team, desktop, page } = world);
    offline = await h.bootDesktop(`http://127.0.0.1:${await unusedPort()}`);
  }, 300_000);

  afterAll(async () => {
    await world?.close();
  }, 120_000);

  it('opens as the local owner, with the desktop-only Sync & Ollama entry in the navigation', async () => {
    await page.goto(`${ORIGIN}/`);
    await page.waitForURL(/\/overview$/);
    await page.getByRole('link', { name: 'Sync & Ollama' }).waitFor();
    await record('desktop-overview');
    expect(h.bridged).toContain('GET /api/v1/auth/me');
  }, 120_000);

  it("offers none of the team server's pages: no Administration or Integrations entry, no team-only Organization tab, no sign-in settings", async () => {
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(nav).toEqual(expect.arrayContaining(['Findings', 'Rules', 'Templates', 'Organization', 'Sync & Ollama']));
    expect(nav.filter((entry) => TEAM_ONLY_NAV.includes(entry))).toEqual([]);

    await page.getByRole('link', { name: 'Organization' }).click();
    // The sections sit in groups (People, Settings, ...), each group a tab with its own row of sections: read them all.
    const groups = page.getByRole('tablist', { name: 'Organization sections' });
    await groups.getByRole('tab', { name: 'People' }).waitFor(); // the page loads lazily: wait before reading the tabs
    const tabs: string[] = [];
    for (const group of await groups.getByRole('tab').allTextContents()) {
      await groups.getByRole('tab', { name: group }).click();
      tabs.push(...(await page.getByRole('tablist', { name: group }).getByRole('tab').allTextContents()));
    }
    expect(tabs).toEqual(expect.arrayContaining(['Members', 'Model credentials', 'Analyzers']));
    expect(tabs.filter((t) => TEAM_ONLY_TABS.includes(t))).toEqual([]);
    await record('desktop-organization');

    // Typed into the address bar of a browser it would be a page; in the desktop it says where it belongs and links nowhere.
    await page.goto(`${ORIGIN}/admin/settings/sign-in?tab=google`);
    await page.getByText('Sign-in settings belong to a team server; the desktop app has no sign-in.').waitFor();
    expect(await page.locator('a[href*="/api/"]').count()).toBe(0);
    expect(h.bridged.filter((r) => r.includes('/admin/'))).toEqual([]);
  }, 120_000);

  it('analyses a dropped corpus plan with the local Ollama model and follows the job to the end (also after a reload of the job page)', async () => {
    await page.getByRole('link', { name: 'Analyse' }).click();
    await dropCorpusPlan(page, PLAN);
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
    for (const [button, file, expected] of [
      ['Download Markdown', `${NAMESPACE}-report.md`, /^#|\n#/],
      ['Download HTML', `${NAMESPACE}-report.html`, /<html/i],
    ] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      expect(download.suggestedFilename()).toBe(file);
      const text = readFileSync((await download.path())!, 'utf8');
      expect(text).toMatch(expected);
      expect(text).toContain(NAMESPACE);
    }
    expect(h.bridged.filter((r) => r.startsWith(`GET /api/v1/${NAMESPACE}/report?`) && r.includes('raw=true'))).toHaveLength(2);
    await record('desktop-reports');
  }, 120_000);

  it('shows the local models Ollama has, and plainly how to start Ollama and pull a model when it is not running', async () => {
    await page.getByRole('link', { name: 'Sync & Ollama' }).click();
    await page.getByRole('tab', { name: 'Ollama (local models)' }).click();
    await page.getByText(`Ollama is running at ${fake.ollamaHost}`).waitFor();
    await page.getByRole('cell', { name: 'llama3.1:8b' }).waitFor();
    await record('desktop-ollama');

    const other = await h.desktopPage(offline);
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
    await page.getByLabel('Service key', { exact: true }).fill(team.serviceKey);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The service key is in the system keychain.').waitFor();
    const keychainFile = readFileSync(join(desktop.userDataDir, 'credentials.json'), 'utf8');
    expect(keychainFile).not.toContain(team.serviceKey);
    expect(readFileSync(join(desktop.userDataDir, 'settings.json'), 'utf8')).not.toContain(team.serviceKey);

    await page.getByRole('checkbox', { name: NAMESPACE }).check();
    await page.getByRole('button', { name: 'Push 1 namespace' }).click();
    await page.getByText(new RegExp(`^${NAMESPACE}: \\d+ analys[ie]s sent, 0 already on the team server`)).waitFor({ timeout: 60_000 });
    const rows = page.locator('table.sync-log tbody tr');
    await expect
      .poll(async () => (await rows.allTextContents()).some((row) => row.includes('push') && row.includes('ingest') && row.includes(NAMESPACE)))
      .toBe(true);
    await record('desktop-sync');

    const onTeam = await team.api(`/findings?namespace=${NAMESPACE}&limit=1000`);
    const teamFindings = ((await onTeam.json()) as { findings: { resource_hash: string; rule_id: string; status: string }[] }).findings;
    const local = await localFindings();
    expect(teamFindings.map((f) => `${f.resource_hash} ${f.rule_id}`).sort()).toEqual(local.map((f) => `${f.resource_hash} ${f.rule_id}`).sort());
    expect(teamFindings.filter((f) => f.status === 'acknowledged')).toHaveLength(1);
  }, 180_000);

  it('made no request off the page: assets from the renderer origin only, the API over the bridge only', () => {
    expect(h.external).toEqual([]);
    const elsewhere = h.pageRequests.filter((r) => !r.split(' ')[1].startsWith(`${ORIGIN}/`) && !/^(data|blob):/.test(r.split(' ')[1]));
    expect(elsewhere).toEqual([]);
    expect(h.pageRequests.filter((r) => r.includes('/api/'))).toEqual([]);
    expect(h.pageRequests.every((r) => r.startsWith('GET '))).toBe(true);
    expect(h.bridged.length).toBeGreaterThan(10);
  });

  it('found no serious or critical axe violation on the desktop pages', () => {
    expect(Object.keys(h.scans).length).toBeGreaterThanOrEqual(8);
    expect(Object.fromEntries(Object.entries(h.scans).filter(([, v]) => v.length > 0))).toEqual({});
  });
});
