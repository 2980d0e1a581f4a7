/**
 * The plan view, in a real browser against the compiled server (`npm start`'s bundle, auth on,
 * no provider configured, no Ollama): a sample plan analysed with the Analyse page's default
 * (deterministic checks only) leads from the finished job to the plan view, which shows the
 * plan's resources as a tree by module with Terraform's action symbols, unchanged ones greyed, and
 * severity badges equal to what GET /findings gives; the action and severity filters narrow
 * the tree; j/k and the arrows move the selection and Enter shows the rendered change with the
 * evidence lines highlighted. A plan with destroys, in-place updates and unchanged resources
 * shows their symbols. Screenshots at 1400×900 and 390×844 go to tests/web/artifacts/; the wide
 * one is the README's (docs/plan-view.png).
 */
import { copyFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { corpusFile } from '../corpus';
import type { ServerProcess } from '../helpers/server-process';
import { screenshot, seriousViolations } from './browser';
import { BROWSER_READY, startDashboardRig, type DashboardRig } from './dashboard-rig';
import { apiJson, signIn } from './flows';

/** infracost's AWS example plan (tests/corpus/MANIFEST.tsv): nested modules, creates, an in-place update, unchanged resources. */
const SAMPLE_PLAN = resolve(import.meta.dirname, '../corpus/tfplan-json/infracost-aws-modules-tf014-large.json');
/** The README's screenshot of this view. */
const README_SHOT = resolve(import.meta.dirname, '../../docs/plan-view.png');
const OWNER = { email: 'plan-view@example.com', password: 'correct-horse-1' };
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'];

type ApiFinding = { resource_hash: string; severity: string; status: string };

/** `HIGH 2 MEDIUM 1`: the badges' text as the findings API counts them (suppressed and false positives left out). */
function badgeText(findings: readonly ApiFinding[]): string {
  const shown = findings.filter((f) => !['suppressed', 'false_positive'].includes(f.status));
  return SEVERITIES.flatMap((s) => {
    const n = shown.filter((f) => f.severity === s).length;
    return n > 0 ? [`${s}${n}`] : [];
  }).join('');
}

/** Each unit row's badges as text, by resource hash. */
async function rowBadges(page: Page): Promise<Record<string, string>> {
  const rows = page.locator('.plan-unit');
  const out: Record<string, string> = {};
  for (let i = 0; i < (await rows.count()); i += 1) {
    const row = rows.nth(i);
    out[(await row.getAttribute('data-hash'))!] = ((await row.locator('.plan-badges').textContent()) ?? '').replace(/\s+/g, '');
  }
  return out;
}

describe.skipIf(!BROWSER_READY)('The plan view after a checks-only analysis', () => {
  let rig: DashboardRig | undefined;
  let server: ServerProcess;
  let page: Page;
  let owner: DashboardRig['owner'];
  let namespace: string;

  beforeAll(async () => {
    rig = await startDashboardRig({ name: 'plan-view', owner: OWNER, orgName: 'Plan View' });
    ({ server, page, owner } = rig);
  }, 180_000);
  afterAll(async () => {
    await rig?.stop();
  }, 180_000);

  it('opens from the finished job: nested modules, action symbols, unchanged greyed, badges as GET /findings counts them', async () => {
    await signIn(page, server.url, OWNER.email, OWNER.password, '/analyse');
    await page.getByLabel('Model', { exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    await page.locator('input[type=file]').setInputFiles(SAMPLE_PLAN);
    await page.getByText('Loaded infracost-aws-modules-tf014-large.json').waitFor();
    await page.getByRole('button', { name: 'Run analysis' }).click();
    await page.waitForURL(/\/jobs\//);
    await page.getByRole('link', { name: 'Open the plan view' }).click();
    await page.waitForURL(/\/plan\/[^/]+$/);
    namespace = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
    await page.locator('.plan-unit').first().waitFor();
    await page.waitForLoadState('networkidle');

    // The tree: nested modules, one level per module call; creates, an in-place update, unchanged resources greyed.
    const view = (await apiJson(server.url, 'GET', `/${namespace}/plan`, { cookie: owner.cookie })).body as { units: { action: string }[] };
    const labels = await page.locator('.plan-node-head .plan-node-label').allTextContents();
    expect(labels[0]).toBe('root module');
    expect(labels).toEqual(expect.arrayContaining(['module.db', 'module.db_1', 'module.db_instance']));
    const nested = page.locator('.plan-node', { has: page.locator('> .plan-node-head', { hasText: 'module.db_instance' }) });
    expect(await nested.locator('.plan-unit .plan-address').allTextContents()).toContain('aws_db_instance.this[0]');
    expect(await page.locator('.plan-unit').count()).toBe(view.units.length);
    const symbols = await page.locator('.plan-unit .plan-symbol [aria-hidden]').allTextContents();
    for (const [symbol, action] of [
      ['+', 'create'],
      ['~', 'update'],
      ['·', 'no-op'],
    ]) {
      expect(symbols.filter((s) => s === symbol).length, action).toBe(view.units.filter((u) => u.action === action).length);
    }
    expect(await page.locator('.plan-unit.quiet').count()).toBe(view.units.filter((u) => u.action === 'no-op').length);
    await expect(page.getByTestId('plan-summary').textContent()).resolves.toMatch(/Plan: 12 to add, 1 to change, 0 to destroy, 13 unchanged\./);

    // Badges: per resource and in total, what the findings API lists for the namespace.
    const listed = (await apiJson(server.url, 'GET', `/findings?namespace=${namespace}&limit=1000`, { cookie: owner.cookie })).body.findings as ApiFinding[];
    expect(listed.length).toBeGreaterThan(0);
    const badges = await rowBadges(page);
    for (const [hash, text] of Object.entries(badges)) expect(text, hash).toBe(badgeText(listed.filter((f) => f.resource_hash === hash)));
    expect(((await page.getByTestId('plan-summary').locator('.plan-badges').textContent()) ?? '').replace(/\s+/g, '')).toBe(badgeText(listed));
    expect(await page.getByText('Fake finding').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  }, 180_000);

  it('narrows the tree by action and by severity, in the URL', async () => {
    await page.getByLabel('Action').selectOption('no-op');
    await page.waitForURL(/action=no-op/);
    await expect.poll(() => page.locator('.plan-unit').count()).toBe(13);
    expect(await page.locator('.plan-unit:not(.quiet)').count()).toBe(0);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    const listed = (await apiJson(server.url, 'GET', `/findings?namespace=${namespace}&limit=1000`, { cookie: owner.cookie })).body.findings as ApiFinding[];
    const worst = SEVERITIES.find((s) => listed.some((f) => f.severity === s))!;
    await page.getByLabel('Severity').selectOption(worst);
    await page.waitForURL(new RegExp(`severity=${worst}`));
    const withWorst = new Set(listed.filter((f) => f.severity === worst).map((f) => f.resource_hash));
    await expect.poll(() => page.locator('.plan-unit').count()).toBe(withWorst.size);
    const shown = await page.locator('.plan-unit').evaluateAll((rows: any[]) => rows.map((r) => r.getAttribute('data-hash')));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(26);
    expect(new Set(shown)).toEqual(withWorst);
  }, 120_000);

  it('moves with j/k and the arrows; Enter shows the rendered change with the evidence lines marked', async () => {
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL(/\/plan\/[^/?]+$/);
    await expect.poll(() => page.locator('.plan-unit').count()).toBe(26);
    await page.evaluate('document.activeElement?.blur()'); // the page, not a control, has the keyboard
    await page.keyboard.press('j');
    const first = await page.locator('.plan-unit.active').getAttribute('data-hash');
    expect(first).toBe(await page.locator('.plan-unit').first().getAttribute('data-hash'));
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('.plan-unit.active').getAttribute('data-hash')).toBe(await page.locator('.plan-unit').nth(1).getAttribute('data-hash'));
    await page.keyboard.press('k');
    expect(await page.locator('.plan-unit.active').getAttribute('data-hash')).toBe(first);
    await page.keyboard.press('ArrowUp'); // stays on the first
    expect(await page.locator('.plan-unit.active').getAttribute('data-hash')).toBe(first);
    // On to the first resource with a CRITICAL finding, as a reviewer would.
    const target = await page
      .locator('.plan-unit', { has: page.locator('.sev-critical') })
      .first()
      .getAttribute('data-hash');
    for (let i = 0; i < 30 && (await page.locator('.plan-unit.active').getAttribute('data-hash')) !== target; i += 1) await page.keyboard.press('j');
    const picked = await page.locator('.plan-unit.active').getAttribute('data-hash');
    expect(picked).toBe(target);

    await page.keyboard.press('Enter');
    const detail = page.getByRole('complementary', { name: 'Change detail' });
    const change = detail.getByLabel('Rendered change');
    await change.waitFor();
    const resource = (await apiJson(server.url, 'GET', `/resource/${picked}`, { cookie: owner.cookie })).body;
    expect(await detail.locator('h2').textContent()).toContain(resource.value.name);
    const marked = await change.locator('mark').allTextContents();
    expect(marked.length).toBeGreaterThan(0);
    const evidence: string[] = resource.analysis.findings.flatMap((f: { evidence: string[] }) => f.evidence);
    for (const line of marked) expect(evidence.some((e) => line.includes(e.trim()) || e.includes(line.trim()))).toBe(true);
    expect(await detail.locator('.plan-findings li').count()).toBeGreaterThan(0);

    const wide = await screenshot(page, 'plan-view-1400');
    copyFileSync(wide, README_SHOT);
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' }); // the same view in the dark theme, for a look (tests/web/artifacts/)
    await screenshot(page, 'plan-view-1400-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Escape');
    await expect(change.count()).resolves.toBe(0);
  }, 120_000);

  it('shows destroys, in-place updates and unchanged resources with their symbols; fits a phone', async () => {
    const other = 'plan-view-drift';
    const res = await apiJson(server.url, 'POST', `/${other}/analyze/auto`, {
      cookie: owner.cookie,
      json: { raw_input: corpusFile('tfplan-json/tfcompliance-aws-deletes-drift-issue522.json').toString('utf8') },
    });
    expect(res.status).toBe(200);
    await page.goto(`${server.url}/plan/${other}`);
    await page.locator('.plan-unit').first().waitFor();
    const symbols = await page.locator('.plan-unit .plan-symbol [aria-hidden]').allTextContents();
    expect(new Set(symbols)).toEqual(new Set(['+', '~', '-', '·']));
    await expect(page.getByTestId('plan-summary').textContent()).resolves.toMatch(/Plan: 5 to add, 1 to change, 2 to destroy, 7 unchanged\./);
    await page.getByLabel('Action').selectOption('destroy');
    await page.waitForURL(/action=destroy/);
    await expect.poll(() => page.locator('.plan-unit').count()).toBe(2);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/plan/${namespace}`);
    await page
      .locator('.plan-unit', { has: page.locator('.sev-high') })
      .first()
      .click();
    await page.getByLabel('Rendered change').waitFor();
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'plan-view-390');
    expect(await seriousViolations(page)).toEqual([]);
  }, 180_000);
});
