/**
 * The desktop's Sync & Ollama page over the real bridge, in Chromium (issue 10 "Sync to a team
 * org", "What the user can do"; setup shared with desktop-renderer.test.ts in desktop-harness.ts):
 * a person pulls the team org's custom rules and triage statuses (the next local analysis sends
 * the custom rule's text to the local model; a decision made on both sides resolves to the later
 * one, the earlier one still in the finding's feedback history), pushes while the team server is
 * down (queued, then sent once it answers, both in the sync log), and reads the Ollama panel of an
 * Ollama that runs with no model installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { DesktopApp } from '../../apps/desktop/src/core/desktop-app';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import {
  analyseDropped,
  desktopBrowserMissing,
  dropCorpusPlan,
  ORIGIN,
  startDesktopWorld,
  type DesktopHarness,
  type DesktopWorld,
  type TeamServer,
} from './desktop-harness';

const PLAN = 'tfplan-json/checkov-aws-github-oidc-iam-modules.json';
const LATER_PLAN = 'tfplan-json/terraform-showjson-basic-delete.json';
const PULLED = 'laptop-pull';
const AFTER_PULL = 'after-pull';
const RULE_TEXT = 'Every bucket policy must name the security team as reviewer (team rule 7781).';

interface Finding {
  resource_hash: string;
  rule_id: string;
  status: string;
}

if (desktopBrowserMissing) console.warn(`Skipping the desktop sync browser test: ${desktopBrowserMissing}`);

describe.skipIf(desktopBrowserMissing !== null)('the desktop Sync & Ollama page over the real bridge, in Chromium', () => {
  let world: DesktopWorld;
  let h: DesktopHarness;
  let fake: FakeProvider;
  let noModel: FakeProvider;
  let team: TeamServer;
  let desktop: DesktopApp;
  let page: Page;

  const localFindings = async (namespace: string) =>
    JSON.parse((await desktop.bridge({ method: 'GET', path: `/api/v1/findings?namespace=${namespace}&limit=1000`, headers: {}, body: null })).body)
      .findings as Finding[];
  const teamPatch = async (f: Finding, status: string) =>
    expect((await team.api(`/findings/${f.resource_hash}/${encodeURIComponent(f.rule_id)}`, { method: 'PATCH', json: { status } })).status).toBe(200);
  const syncLog = () => page.locator('table.sync-log tbody tr').allTextContents();
  const openSync = async () => {
    await page.getByRole('link', { name: 'Sync & Ollama' }).click();
    await page.getByRole('tab', { name: 'Sync to a team' }).click();
  };
  const pushNamespace = async (namespace: string) => {
    await page.getByRole('checkbox', { name: namespace }).check();
    await page.getByRole('button', { name: 'Push 1 namespace' }).click();
  };

  beforeAll(async () => {
    world = await startDesktopWorld();
    ({ h, fake, team, desktop, page } = world);
    noModel = await startFakeProvider({ ollamaModels: [] });
  }, 300_000);

  afterAll(async () => {
    await world?.close();
    await noModel?.close();
  }, 120_000);

  it("pulls the team's custom rule (the next local analysis sends its text to Ollama) and its triage; a decision made on both sides goes to the later one, the earlier kept in the history", async () => {
    // A local analysis, pushed to the team once.
    await page.goto(`${ORIGIN}/analyse`);
    await dropCorpusPlan(page, PLAN);
    await analyseDropped(page, PULLED);
    await openSync();
    await page.getByLabel('Team server URL', { exact: true }).fill(team.url);
    await page.getByLabel('Service key', { exact: true }).fill(team.serviceKey);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The service key is in the system keychain.').waitFor();
    await pushNamespace(PULLED);
    await page.getByText(new RegExp(`^${PULLED}: \\d+ analys[ie]s sent`)).waitFor({ timeout: 60_000 });

    // The person acknowledges the first finding on the laptop; later, the team calls it a false positive
    // and suppresses a second one, and adds a custom rule.
    await page.goto(`${ORIGIN}/findings?namespace=${PULLED}`);
    await page.locator('tr[data-finding]').first().waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('a');
    await expect.poll(async () => (await localFindings(PULLED)).filter((f) => f.status === 'acknowledged').length).toBe(1);
    const all = await localFindings(PULLED);
    const both = all.find((f) => f.status === 'acknowledged')!;
    const teamOnly = all.find((f) => f !== both)!;
    await teamPatch(both, 'false_positive');
    await teamPatch(teamOnly, 'suppressed');
    const me = (await (await team.api('/auth/me')).json()) as { org_id: string };
    expect((await team.api(`/orgs/${me.org_id}/rule-categories`, { method: 'POST', json: { name: 'Team policy' } })).status).toBe(201);
    expect(
      (
        await team.api(`/orgs/${me.org_id}/rules`, {
          method: 'POST',
          json: { title: 'Bucket policies name a reviewer', description: RULE_TEXT, category: 'team-policy', severity: 'HIGH', analyzers: ['terraform'] },
        })
      ).status,
    ).toBe(201);

    await openSync();
    await page.getByRole('button', { name: 'Pull rules and triage' }).click();
    await page
      .getByText('Pulled 1 new custom rule and 0 updated rules; 2 triage statuses applied (1 conflict, the later decision kept).')
      .waitFor({ timeout: 60_000 });
    // The log is refetched after the pull: poll it rather than read it once.
    await expect.poll(async () => (await syncLog()).some((row) => row.includes('pull') && row.includes('rules') && row.includes('1 rule created'))).toBe(true);
    await expect
      .poll(async () =>
        (await syncLog()).some((row) => row.includes('pull') && row.includes('triage') && row.includes('1 conflict resolved (later decision wins)')),
      )
      .toBe(true);
    await h.record('desktop-sync-pull', page);

    const pulled = new Map((await localFindings(PULLED)).map((f) => [`${f.resource_hash}/${f.rule_id}`, f.status]));
    expect(pulled.get(`${both.resource_hash}/${both.rule_id}`)).toBe('false_positive');
    expect(pulled.get(`${teamOnly.resource_hash}/${teamOnly.rule_id}`)).toBe('suppressed');

    // The finding's detail shows the team's later decision and, below it, the laptop's earlier one.
    await page.goto(`${ORIGIN}/findings?namespace=${PULLED}&status=any`);
    await page.locator(`tr[data-finding="${both.resource_hash}/${both.rule_id}"]`).click();
    const detail = page.getByRole('complementary', { name: 'Finding detail' });
    await detail.getByText('false positive', { exact: true }).first().waitFor();
    const history = detail.locator('ol.history li');
    await expect.poll(() => history.count()).toBeGreaterThanOrEqual(2);
    const entries = await history.allTextContents();
    expect(entries.some((e) => /confirmed/.test(e))).toBe(true); // the laptop's acknowledgement, superseded
    expect(entries.some((e) => /rejected/.test(e))).toBe(true); // the team's later false positive, now the status
    await history.last().scrollIntoViewIfNeeded();
    await h.record('desktop-sync-conflict', page);

    // The next local analysis uses the pulled rule: its text reaches the local model.
    const before = fake.requests.length;
    await page.goto(`${ORIGIN}/analyse`);
    await dropCorpusPlan(page, LATER_PLAN);
    await analyseDropped(page, AFTER_PULL);
    const prompts = fake.requests.slice(before).filter((r) => r.backend === 'ollama' && r.path === '/api/chat');
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.some((r) => JSON.stringify(r.body).includes(RULE_TEXT))).toBe(true);
  }, 300_000);

  it('queues a push while the team server is down and sends it once the server answers again, both in the sync log', async () => {
    await team.stop();
    await openSync();
    await pushNamespace(AFTER_PULL);
    await page.getByText('The team server cannot be reached, so the push is queued.').waitFor({ timeout: 60_000 });
    await page.getByText(`Waiting to push when the team server answers: ${AFTER_PULL}.`).waitFor();
    await expect.poll(async () => (await syncLog()).some((row) => row.includes('queue') && row.includes('queued') && row.includes(AFTER_PULL))).toBe(true);
    await h.record('desktop-sync-queued', page);

    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.getByText(/^The team server still cannot be reached; 1 push waits/).waitFor({ timeout: 60_000 });

    await team.start();
    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.getByText('Done: 1 queued push sent to the team server.').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByText(/^Waiting to push/).count()).toBe(0);
    expect(await page.getByText('The team server cannot be reached, so the push is queued.').count()).toBe(0);
    await expect.poll(async () => (await syncLog()).some((row) => row.includes('push') && row.includes('ingest') && row.includes(AFTER_PULL))).toBe(true);
    await expect.poll(async () => (await syncLog()).some((row) => row.includes('queue') && row.includes(AFTER_PULL))).toBe(true);
    await h.record('desktop-sync-flushed', page);

    const resources = (await (await team.api(`/${AFTER_PULL}/resources`)).json()) as { analysis: unknown }[];
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((r) => r.analysis !== null)).toBe(true);
  }, 300_000);

  it('says plainly how to pull a model when Ollama runs with none installed', async () => {
    const bare = await h.bootDesktop(noModel.ollamaHost);
    const other = await h.desktopPage(bare);
    await other.goto(`${ORIGIN}/desktop?tab=ollama`);
    await other.getByText(`Ollama is running at ${noModel.ollamaHost} but has no model yet.`).waitFor();
    await other.getByText('ollama pull llama3.1:8b').waitFor();
    // Ollama runs: no step tells the person to install or start it.
    expect(await other.getByText(/Install Ollama from/).count()).toBe(0);
    expect(await other.getByText(/ollama serve/).count()).toBe(0);
    await h.record('desktop-ollama-no-model', other);
    await other.getByRole('button', { name: 'Check again' }).click();
    await other.getByText(`Ollama is running at ${noModel.ollamaHost} but has no model yet.`).waitFor();
    await other.close();
  }, 120_000);

  it('made no request off the page and found no serious or critical axe violation', () => {
    expect(h.external).toEqual([]);
    expect(h.pageRequests.filter((r) => r.includes('/api/'))).toEqual([]);
    expect(Object.keys(h.scans).length).toBeGreaterThanOrEqual(5);
    expect(Object.fromEntries(Object.entries(h.scans).filter(([, v]) => v.length > 0))).toEqual({});
  });
});
