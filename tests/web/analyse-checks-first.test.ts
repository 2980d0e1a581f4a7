/**
 * The first run, in a real browser against the compiled server (`npm start`'s bundle, auth on):
 * a new owner with no provider key opens Analyse, the page offers and selects "Deterministic
 * checks only" and says how to add a model; a sample plan analysed with that default shows the
 * checks' findings, in the rule's own words, with no error. Once a provider key is stored (the
 * providers' base URLs point at the fake), the model is offered and selected, and a missing key
 * for another provider is named with its fix instead of a generic error. The Analyse page's
 * screenshot goes to tests/web/artifacts/.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import type { ServerProcess } from '../helpers/server-process';
import { screenshot, seriousViolations } from './browser';
import { BROWSER_READY, startDashboardRig, type DashboardRig } from './dashboard-rig';
import { apiJson, signIn } from './flows';

const SAMPLE_PLAN = resolve(import.meta.dirname, '../../resources/examples/azure-firewall-plan.json');
const OWNER = { email: 'first-run@example.com', password: 'correct-horse-1' };

describe.skipIf(!BROWSER_READY)('Analyse on the first run: checks first, a model on top', () => {
  let fake: FakeProvider;
  let rig: DashboardRig | undefined;
  let server: ServerProcess;
  let page: Page;
  let owner: DashboardRig['owner'];

  beforeAll(async () => {
    fake = await startFakeProvider();
    rig = await startDashboardRig({ name: 'first-run', owner: OWNER, orgName: 'First Run', fake });
    ({ server, page, owner } = rig);
  }, 180_000);
  afterAll(async () => {
    await rig?.stop();
    await fake?.close();
  }, 180_000);

  it('with no provider key, selects checks only, says how to add a model, and shows the findings of a sample plan', async () => {
    await signIn(page, server.url, OWNER.email, OWNER.password, '/analyse');
    await page.waitForURL(/\/analyse$/);
    const choice = page.getByLabel('Model', { exact: true });
    await choice.waitFor();
    await page.waitForLoadState('networkidle');
    expect(await choice.inputValue()).toBe('checks-only');
    const note = page.getByTestId('choice-note');
    expect(await note.textContent()).toMatch(
      /No model is set up, so the checks run alone\. Add one: a provider key under Organization → Credentials, or ollama pull llama3\.1:8b/,
    );
    await expect(page.getByLabel('API key (optional)').count()).resolves.toBe(0); // no key field for checks only

    await page.locator('input[type=file]').setInputFiles(SAMPLE_PLAN);
    await page.getByText('Loaded azure-firewall-plan.json').waitFor();
    await screenshot(page, 'analyse-first-run');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Run analysis' }).click();
    await page.waitForURL(/\/jobs\//);
    await page.getByText(/Finished .* with \d+ units/).waitFor();
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    await page.getByRole('link', { name: 'Triage the findings' }).click();
    await page.waitForURL(/\/findings\?namespace=/);
    await page.getByText('Azure Firewall threat intelligence does not block').first().waitFor();
    await page.waitForLoadState('networkidle');
    await page.keyboard.press('j'); // the first finding's detail: the rule's words and the failing attribute
    await page.getByText('sets threat_intel_mode = "Alert"').first().waitFor();
    await page
      .getByText(/known-malicious IP addresses and domains/)
      .first()
      .waitFor();
    await screenshot(page, 'analyse-first-run-findings');
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(fake.requests).toHaveLength(0); // no model was called
  }, 180_000);

  it('with a stored key, offers and selects that provider’s model; a provider without a key is named with its fix', async () => {
    const stored = await apiJson(server.url, 'POST', `/orgs/${owner.orgId}/llm-credentials`, {
      cookie: owner.cookie,
      json: { provider: 'openai', api_key: 'sk-fake' },
    });
    expect(stored.status).toBe(201);
    await page.goto(`${server.url}/analyse`);
    const choice = page.getByLabel('Model', { exact: true });
    await choice.waitFor();
    await page.waitForLoadState('networkidle');
    expect(await choice.inputValue()).toMatch(/^openai\//);
    expect(await page.getByTestId('choice-note').textContent()).toMatch(/The checks run first; openai · .* then reviews every unit/);
    const anthropic = await choice.locator('option[value^="anthropic/"]').first().getAttribute('value');
    expect(await choice.locator(`option[value="${anthropic}"]`).textContent()).toContain('(no key)');

    // A provider with no key, chosen anyway: the server's 400 is named with its fix, never "Something went wrong".
    await choice.selectOption(anthropic!);
    await page.locator('input[type=file]').setInputFiles(SAMPLE_PLAN);
    await page.getByRole('button', { name: 'Run analysis' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/No API key is stored for anthropic\..*Deterministic checks only/);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
  }, 180_000);
});
