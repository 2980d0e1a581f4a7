/**
 * Runs compared in a real browser against the compiled server (`npm start`'s bundle, auth on):
 * the Analyse page names the namespace after the dropped file, so a plan analysed twice lands in
 * one namespace; the second run, with one firewall fixed, says "+N new · −M no longer detected ·
 * K unchanged" on its job page; the findings page lists the fixed firewall's findings as no
 * longer detected and "Resolve all as fixed" resolves them in one action; analysed again as it
 * was, they come back flagged "reappeared". Screenshots go to tests/web/artifacts/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ServerProcess } from '../helpers/server-process';
import { screenshot, seriousViolations } from './browser';
import { BROWSER_READY, startDashboardRig, type DashboardRig } from './dashboard-rig';
import { signIn } from './flows';

const FILE = 'azure-firewall-plan.json';
const SAMPLE_PLAN = resolve(import.meta.dirname, `../../resources/examples/${FILE}`);
const FIXED_ADDRESS = 'azurerm_firewall.standard';
const OWNER = { email: 'runs@example.com', password: 'correct-horse-1' };

describe.skipIf(!BROWSER_READY)('runs compared in the dashboard', () => {
  let rig: DashboardRig | undefined;
  let server: ServerProcess;
  let page: Page;
  /** The same file name, one firewall fixed (threat intelligence set to Deny). */
  let fixedPlan: string;

  beforeAll(async () => {
    rig = await startDashboardRig({ name: 'runs', owner: OWNER, orgName: 'Runs' });
    ({ server, page } = rig);
    const plan = JSON.parse(readFileSync(SAMPLE_PLAN, 'utf8')) as { resource_changes: { address: string; change: { after: Record<string, unknown> } }[] };
    plan.resource_changes.find((rc) => rc.address === FIXED_ADDRESS)!.change.after.threat_intel_mode = 'Deny';
    mkdirSync(join(rig.workDir, 'fixed'));
    fixedPlan = join(rig.workDir, 'fixed', FILE);
    writeFileSync(fixedPlan, JSON.stringify(plan));
  }, 180_000);
  afterAll(async () => {
    await rig?.stop();
  }, 180_000);

  /** Analyse → the file (checks only, the default without a key) → the job page's comparison line. */
  async function analyse(file: string): Promise<string> {
    await page.goto(`${server.url}/analyse`);
    await page.locator('input[type=file]').setInputFiles(file);
    await page.getByText(`Loaded ${FILE}`).waitFor();
    expect(await page.getByLabel('Namespace').inputValue()).toBe(FILE);
    await page.getByRole('button', { name: 'Run analysis' }).click();
    await page.waitForURL(/\/jobs\//);
    const line = page.getByTestId('runs-compared');
    await line.waitFor();
    return (await line.textContent()) ?? '';
  }

  it('names the namespace after the file, compares the runs, resolves what is gone in one action and flags what came back', async () => {
    await signIn(page, server.url, OWNER.email, OWNER.password, '/analyse');
    await page.waitForURL(/\/analyse$/);
    // Typed namespaces win over the file name; the first run below uses the file's.
    await page.getByLabel('Namespace').fill('typed-by-hand');
    await page.locator('input[type=file]').setInputFiles(SAMPLE_PLAN);
    await page.getByText(`Loaded ${FILE}`).waitFor();
    expect(await page.getByLabel('Namespace').inputValue()).toBe('typed-by-hand');

    const first = await analyse(SAMPLE_PLAN);
    expect(first).toMatch(/\+\d+ new · −0 no longer detected · 0 unchanged/);
    const total = Number(/\+(\d+) new/.exec(first)![1]);

    const second = await analyse(fixedPlan);
    const [, added, gone, unchanged] = /\+(\d+) new · −(\d+) no longer detected · (\d+) unchanged/.exec(second)!.map(Number);
    expect(gone).toBeGreaterThan(0);
    expect(unchanged).toBe(total - gone);
    expect(added).toBeGreaterThanOrEqual(0);
    await screenshot(page, 'runs-compared-job');

    await page.getByRole('link', { name: 'Review what is no longer detected' }).click();
    await page.waitForURL(/\/findings\?namespace=/);
    const panel = page.getByTestId('no-longer-detected');
    await panel.waitFor();
    expect(await panel.textContent()).toContain(`${gone} open finding${gone === 1 ? ' is' : 's are'} no longer detected`);
    expect(await panel.getByText(FIXED_ADDRESS).count()).toBe(gone);
    // The list above it holds the latest run's findings only: the gone ones are shown apart.
    const current = await page.request.get(`${server.url}/api/v1/findings?namespace=${FILE}&detection=current&status=open&limit=1000`);
    const { findings: currentOpen } = (await current.json()) as { findings: unknown[] };
    await page.getByText(`${currentOpen.length} open finding${currentOpen.length === 1 ? '' : 's'}`, { exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'runs-compared-findings');

    await panel.getByRole('button', { name: `Resolve all ${gone} as fixed` }).click();
    await panel.getByText(`Resolved ${gone} finding${gone === 1 ? '' : 's'} as fixed`).waitFor();
    expect(await page.getByText('Something went wrong').count()).toBe(0);

    // The firewall as it was: its findings come back, flagged, their status kept.
    await analyse(SAMPLE_PLAN);
    await page.goto(`${server.url}/findings?namespace=${FILE}`);
    await panel.waitFor();
    expect(await panel.getByText('reappeared', { exact: true }).count()).toBe(gone);
    expect(await panel.textContent()).toContain(`${gone} finding${gone === 1 ? '' : 's'} reappeared`);
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'runs-compared-reappeared');
  }, 240_000);
});
