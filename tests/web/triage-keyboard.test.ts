/**
 * Triage at keyboard speed, in a real browser against the compiled server with auth on: ten
 * findings triaged by keyboard alone (each save hands the focus back to the list and opens the
 * next finding; `s` asks for a reason and an end date; Escape leaves the form; Undo for 10 s);
 * the namespace picker searches ("aws" finds both aws namespaces) and selects several; the
 * status filter starts at open; a finding's own URL opened cold goes through sign-in and
 * shows that finding; a masked secret says what its mask means; the Overview ranks the
 * riskiest namespaces. Screenshots at 1400×900 and 390×844 under tests/web/artifacts/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process';
import { newContext, screenshot } from './browser';
import { BROWSER_READY, startDashboardRig, type DashboardRig } from './dashboard-rig';
import { apiJson, Recorder, signIn } from './flows';

const OWNER = { email: 'triager@example.com', password: 'correct-horse-1' };
const PROD = 'aws-network-prod';
const STAGING = 'aws-network-staging';
const GCP = 'gcp-data';
const COUNTS: Record<string, number> = { [PROD]: 12, [STAGING]: 3, [GCP]: 2 };
const SECRET_TITLE = 'Database admin password in plain text';
/** Saves answer in milliseconds, but a loaded 2-core machine may take seconds. */
const POLL = { timeout: 30_000 };

/** A plan of `n` subnets deep in modules (long addresses), the first of `withSecret` a database. */
function plan(ns: string, n: number): string {
  const resource_changes = Array.from({ length: n }, (_, i) => ({
    address: `module.vpc.module.${ns.replace(/-/g, '_')}.aws_subnet.private[${i}]`,
    mode: 'managed',
    type: 'aws_subnet',
    name: 'private',
    index: i,
    change: { actions: ['create'], before: null, after: { cidr_block: `10.${i}.0.0/24`, map_public_ip_on_launch: true }, after_unknown: {} },
  }));
  return JSON.stringify({ format_version: '1.2', resource_changes });
}

type Finding = { resource_hash: string; rule_id: string; status: string; severity: string; title: string; resource_address: string; note: string | null };

describe.skipIf(!BROWSER_READY)('keyboard triage in the findings workbench', () => {
  let rig: DashboardRig | undefined;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let cookie: string;
  const recorder = new Recorder();
  const api = (method: string, path: string, json?: unknown) => apiJson(server.url, method, path, { cookie, json });
  const listOf = async (ns: string): Promise<Finding[]> => (await api('GET', `/findings?namespace=${ns}&limit=1000`)).body.findings;
  /** The findings the picker shows below (both aws namespaces), as the API has them. */
  const picked = async () => [...(await listOf(PROD)), ...(await listOf(STAGING))];
  const activeId = () => page.evaluate('document.activeElement?.id ?? ""');

  beforeAll(async () => {
    rig = await startDashboardRig({ name: 'triage', owner: OWNER, orgName: 'Acme' });
    ({ server, browser, page } = rig);
    cookie = rig.owner.cookie;
    const rules = (await (await fetch(`${server.url}/api/v1/terraform/rules?type=aws`, { headers: { cookie } })).text()).match(/^## ([A-Z0-9-]+):/gm) ?? [];
    const ruleId = rules.map((r) => r.slice(3, -1)).find((r) => r.startsWith('TF-AWS')) ?? 'TF-GEN-SECRET-PLAINTEXT';
    for (const [ns, n] of Object.entries(COUNTS)) {
      const ingest = await fetch(`${server.url}/api/v1/terraform/${ns}/ingest`, { method: 'POST', headers: { cookie }, body: plan(ns, n) });
      expect(ingest.status).toBe(201);
      for (let i = 0; i < n; i += 1) {
        const unit = (await api('GET', `/${ns}/resource/next`)).body as { hash: string; value: { name: string } };
        const secret = ns === PROD && i === 0;
        const put = await api('PUT', `/resource/${unit.hash}/analysis`, {
          summary: 'One subnet.',
          findings: [
            {
              title: secret ? SECRET_TITLE : `Subnet ${i} of ${ns} gives every instance a public IP address`,
              severity: secret ? 'CRITICAL' : i % 3 === 0 ? 'HIGH' : 'MEDIUM',
              rule_id: secret ? 'TF-GEN-SECRET-PLAINTEXT' : ruleId,
              risk: secret ? 'admin_password = (sensitive value)' : 'map_public_ip_on_launch = true',
              why_it_matters: 'Anyone on the internet can reach it.',
              suggested_next_step: 'Turn it off.',
              confidence: 'HIGH',
              evidence: secret ? ['admin_password = (sensitive value)'] : ['map_public_ip_on_launch = true'],
              resource_address: unit.value.name,
              tags: [],
            },
          ],
        });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
      }
    }
    // One finding already acknowledged: the default (open) list leaves it out.
    const done = (await listOf(GCP))[0];
    expect((await api('PATCH', `/findings/${done.resource_hash}/${done.rule_id}`, { status: 'acknowledged' })).status).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await rig?.stop();
  }, 180_000);

  it('lists open findings by default, with a Namespace column and addresses shortened in the middle', async () => {
    await signIn(page, server.url, OWNER.email, OWNER.password, '/findings');
    await page.locator('tr[data-finding]').first().waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('open');
    await page.getByText('16 open findings').waitFor(); // 17 findings, one acknowledged
    expect(await page.getByRole('columnheader', { name: 'Namespace' }).count()).toBe(1);
    const cell = page.locator('tr[data-finding] td span[title^="module.vpc.module."]').first();
    const [shown, full] = [await cell.textContent(), await cell.getAttribute('title')];
    expect(shown).toMatch(/^module\.vpc…aws_subnet\.private\[\d+\]$/);
    expect(full).toMatch(/^module\.vpc\.module\.\w+\.aws_subnet\.private\[\d+\]$/);
    await recorder.record(page, 'triage-list');
  }, 180_000);

  it('filters with the namespace picker: search, several at once', async () => {
    await page.getByRole('button', { name: 'Namespace All namespaces' }).click();
    await page.getByLabel('Search namespaces').fill('aws');
    const panel = page.getByRole('group', { name: 'Choose namespaces' });
    expect(await panel.getByRole('checkbox').count()).toBe(2); // "aws" finds both aws namespaces, not gcp-data
    await panel.getByRole('checkbox', { name: PROD, exact: true }).check();
    await panel.getByRole('checkbox', { name: STAGING, exact: true }).check();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await page.waitForURL((url) => url.searchParams.getAll('namespace').length === 2);
    await page.getByText('15 open findings').waitFor();
    expect(await page.getByRole('button', { name: `Namespace ${PROD}, ${STAGING}` }).count()).toBe(1);
    const namespaces = await page.locator('tr[data-finding] td:nth-last-child(2)').allTextContents();
    expect(new Set(namespaces)).toEqual(new Set([PROD, STAGING]));
    await recorder.record(page, 'triage-picker');
  }, 180_000);

  it('triages ten findings by keyboard alone: each save moves on, Escape leaves the form, Undo restores', async () => {
    const before = await picked();
    expect(before.filter((f) => f.status === 'open')).toHaveLength(15);
    await page.keyboard.press('j'); // opens the first finding (sorted by severity: the CRITICAL secret)
    await page.getByRole('heading', { name: SECRET_TITLE }).waitFor();
    await page.getByText("is Planwarden's mask, not the input's value").waitFor();
    await screenshot(page, 'triage-secret');

    const acknowledge = async () => {
      await page.keyboard.press('a');
      await expect.poll(activeId, POLL).toBe('findings-list');
    };
    await acknowledge(); // 1
    await acknowledge(); // 2

    // `f` opens the form on the reason; Escape leaves it with nothing saved and the keys work again.
    await page.keyboard.press('f');
    await expect.poll(() => page.evaluate('document.activeElement?.tagName'), POLL).toBe('SELECT');
    await page.keyboard.press('Escape');
    await expect.poll(activeId, POLL).toBe('findings-list');
    await page.keyboard.press('f'); // 3: false positive with a note
    await expect.poll(() => page.evaluate('document.activeElement?.tagName'), POLL).toBe('SELECT');
    await page.keyboard.press('Tab');
    await page.keyboard.type('test fixture subnet');
    await page.keyboard.press('Control+Enter');
    await expect.poll(activeId, POLL).toBe('findings-list');

    // `s` asks for a reason and an optional last day.
    await page.keyboard.press('s'); // 4
    await expect.poll(() => page.evaluate('document.activeElement?.tagName'), POLL).toBe('SELECT');
    await page.keyboard.press('a'); // type-to-select: accepted risk
    await page.keyboard.press('Tab'); // the end date
    await page.keyboard.type('12312099');
    await page.keyboard.press('Control+Enter');
    await expect.poll(activeId, POLL).toBe('findings-list');

    await page.keyboard.press('r'); // 5: needs review
    for (let i = 6; i <= 10; i += 1) await acknowledge();

    let after: Finding[] = [];
    await expect
      .poll(async () => {
        after = await picked();
        return after.filter((f) => f.status !== 'open').length;
      }, POLL)
      .toBe(10);
    const byStatus = (s: string) => after.filter((f) => f.status === s).length;
    expect([byStatus('acknowledged'), byStatus('false_positive'), byStatus('suppressed'), byStatus('needs_review')]).toEqual([7, 1, 1, 1]);

    // Undo (the `u` key, within the toast's 10 s) puts the finding the toast names back, by the same PATCH.
    const toast = page.getByTestId('undo-toast');
    await toast.getByText('marked acknowledged').waitFor();
    const named = (await toast.textContent())?.match(/“(.+)” marked acknowledged/)?.[1];
    await page.keyboard.press('u');
    await recorder.record(page, 'triage-keyboard');
    await toast.waitFor({ state: 'detached' });
    expect(after.find((f) => f.title === named)?.status).toBe('acknowledged');
    await expect.poll(async () => (await picked()).find((f) => f.title === named)?.status, POLL).toBe('open');
    expect((await picked()).filter((f) => f.status !== 'open')).toHaveLength(9);

    expect(after.find((f) => f.status === 'false_positive')?.note).toBe('test fixture subnet');
    const suppressed = after.find((f) => f.status === 'suppressed')!;
    const record = (await api('GET', `/findings/${suppressed.resource_hash}/${suppressed.rule_id}`)).body;
    expect(record.suppressed_until).toMatch(/^2100-01-0[12]T/); // the day after 31 Dec 2099, local midnight
    const feedback = (await api('GET', '/feedback?source=dashboard_triage')).body.feedback as { reason_code: string | null }[];
    expect(feedback.map((f) => f.reason_code)).toContain('accepted_risk');
  }, 240_000);

  it('opens a finding by its own URL cold, through sign-in', async () => {
    const target = (await listOf(STAGING))[1];
    const path = `/findings/${STAGING}/${target.resource_hash}/${encodeURIComponent(target.rule_id)}`;
    const { context } = await newContext(browser);
    const cold = await context.newPage();
    await cold.goto(`${server.url}${path}`);
    await cold.waitForURL(/\/login\?next=/);
    await cold.getByLabel('E-mail').fill(OWNER.email);
    await cold.getByLabel('Password').fill(OWNER.password);
    await cold.getByRole('button', { name: 'Sign in' }).click();
    await cold.waitForURL((url) => url.pathname === path);
    await cold.getByRole('heading', { name: target.title }).waitFor();
    const drawer = cold.getByRole('complementary', { name: 'Finding detail' });
    await drawer.getByText(target.resource_address, { exact: true }).first().waitFor(); // the full address, not shortened
    expect(await drawer.getByRole('link', { name: 'Link to this finding' }).getAttribute('href')).toBe(`${server.url}${path}`);
    await recorder.record(cold, 'triage-finding-url');

    // The same finding at a phone's width: the drawer stacks under the list.
    await cold.setViewportSize({ width: 390, height: 844 });
    await cold.getByRole('heading', { name: target.title }).waitFor();
    const list = await cold.locator('.fw-list').boundingBox();
    const pane = await drawer.boundingBox();
    expect(pane!.y).toBeGreaterThanOrEqual(list!.y + list!.height - 1);
    // Severity and title only: the list fits the phone, nothing scrolls sideways.
    const scroll = cold.getByTestId('findings-scroll');
    expect(await scroll.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    expect(await scroll.locator('th[data-col="status"]').isVisible()).toBe(false);
    await recorder.record(cold, 'triage-phone');
    await context.close();
  }, 180_000);

  it('ranks the riskiest namespaces on the Overview', async () => {
    await page.goto(`${server.url}/overview`);
    const card = page.getByRole('region', { name: 'Riskiest namespaces' });
    await card.getByRole('link').first().waitFor();
    // The namespaces with open CRITICAL or HIGH findings, as the findings API counts them, most critical first.
    const risk = await Promise.all(
      [PROD, STAGING, GCP].map(async (ns) => {
        const open = (await listOf(ns)).filter((f) => f.status === 'open');
        const count = (s: string) => open.filter((f) => f.severity === s).length;
        return { ns, critical: count('CRITICAL'), high: count('HIGH') };
      }),
    );
    const expected = risk
      .filter((r) => r.critical + r.high > 0)
      .sort((a, b) => b.critical - a.critical || b.high - a.high)
      .map((r) => `${r.ns} ${r.critical} critical · ${r.high} high`);
    await expect.poll(async () => (await card.locator('li').allTextContents()).sort(), POLL).toEqual([...expected].sort());
    expect((await card.locator('li').allTextContents())[0]).toBe(expected[0]);
    await recorder.record(page, 'triage-overview');
  }, 180_000);

  it('found no serious or critical axe violation', () => {
    recorder.expectClean(5);
  });
});
