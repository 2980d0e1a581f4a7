/**
 * The dashboard everywhere, in a real browser against the compiled server (`npm start`'s bundle,
 * auth on): at a 390 × 844 phone the navigation collapses behind a menu that opens, nothing
 * scrolls sideways and every control is at least 44 px; axe finds no serious or critical
 * violation in light and dark mode at both widths; Organization groups its tabs and has one
 * Invite button (a link to copy, or an existing account added); service keys say when they
 * expire and carry CI snippets; the integrations hub links every integration and GitHub connects
 * through "Install on GitHub" only; a checks-only job says so; a report says how many findings
 * triage hides; and an error the user caused reads as a sentence with its fix.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process';
import { newContext, screenshot, seriousViolations, type AxeViolation } from './browser';
import { BROWSER_READY, startDashboardRig, type DashboardRig } from './dashboard-rig';
import { apiJson, registerOverHttp } from './flows';

/** The README's sample plan: its firewall rules fail deterministic checks, so a checks-only run has findings. */
const PLAN = resolve(import.meta.dirname, '../../resources/examples/azure-firewall-plan.json');
const NAMESPACE = 'everywhere-plan';
const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1400, height: 900 };

/** Controls a finger must hit: buttons, tabs, form controls and the navigation's links (links inside running text are exempt, WCAG 2.5.5). */
const TARGETS = 'button, [role="tab"], select, input:not([type="checkbox"]):not([type="radio"]), a.button, nav a, summary';

describe.skipIf(!BROWSER_READY)('the dashboard on a phone, in dark mode, and its organization pages', () => {
  let rig: DashboardRig | undefined;
  let server: ServerProcess;
  let browser: Browser;
  let cookie: string;

  /** A signed-in page of its own context at `size`, in `scheme`. */
  async function open(path: string, size = WIDE, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const { context } = await newContext(browser);
    const [name, value] = cookie.split('=');
    await context.addCookies([{ name: name!, value: value!, url: server.url }]);
    const page = await context.newPage();
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${server.url}${path}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor(); // a ruleset's Markdown brings its own
    await page.waitForLoadState('networkidle');
    return page;
  }

  beforeAll(async () => {
    rig = await startDashboardRig({ name: 'everywhere', owner: { email: 'admin@example.com', password: 'correct-horse-1' }, orgName: 'Everywhere' });
    ({ server, browser } = rig);
    cookie = rig.owner.cookie;
    // A checks-only analysis (no model), and one finding suppressed by triage.
    const analysed = await apiJson(server.url, 'POST', `/${NAMESPACE}/analyze/auto`, { cookie, json: { raw_input: readFileSync(PLAN, 'utf8') } });
    expect(analysed.status, JSON.stringify(analysed.body)).toBe(200);
    const findings = await apiJson(server.url, 'GET', `/findings?namespace=${NAMESPACE}`, { cookie });
    const first = findings.body.findings[0];
    expect(first, JSON.stringify([analysed.body, findings.body]).slice(0, 800)).toBeDefined();
    const suppressed = await apiJson(server.url, 'PATCH', `/findings/${first.resource_hash}/${encodeURIComponent(first.rule_id)}`, {
      cookie,
      json: { status: 'suppressed', note: 'accepted risk' },
    });
    expect(suppressed.status).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await rig?.stop();
  }, 120_000);

  it('collapses the navigation behind a menu at 390 px that opens, closes on navigation, with no sideways scroll and 44 px targets', async () => {
    for (const path of [
      '/overview',
      '/findings',
      '/analyse',
      '/organization',
      '/organization?tab=keys',
      '/integrations',
      '/reports',
      '/rules',
      '/templates',
      '/account',
      '/jobs',
    ]) {
      const page = await open(path, PHONE);
      const nav = page.getByRole('navigation', { name: 'Main' });
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await nav.isVisible(), path).toBe(false);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      // `any`: the root tsconfig has no DOM library.
      const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      expect(overflow, `${path} scrolls sideways by ${overflow}px`).toBeLessThanOrEqual(0);

      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await nav.getByRole('link', { name: 'Findings' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      const small = await page.locator(TARGETS).evaluateAll(
        (els: any[], max: number) =>
          els
            .filter((el) => el.getClientRects().length > 0 && !el.closest('.skip') && el.getBoundingClientRect().right <= max)
            .map((el) => ({
              el: `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || el.name || '').trim().slice(0, 30)}"`,
              r: el.getBoundingClientRect(),
            }))
            .filter(({ el, r }) => r.height < 44 || (el.startsWith('button') && r.width < 44))
            .map(({ el, r }) => `${el} ${Math.round(r.width)}×${Math.round(r.height)}`),
        PHONE.width,
      );
      expect(small, path).toEqual([]);
      await screenshot(page, `everywhere-phone-menu${path.replace(/[/?=]/g, '-')}`);

      await nav.getByRole('link', { name: 'Jobs' }).click();
      await page.waitForURL(/\/jobs$/);
      expect(await nav.isVisible()).toBe(false);
      await page.context().close();
    }
  }, 300_000);

  it('passes axe in light and dark mode at 1400 and 390 px, and dark mode is dark', async () => {
    const scans: Record<string, AxeViolation[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      for (const [size, label] of [
        [WIDE, 'wide'],
        [PHONE, 'phone'],
      ] as const) {
        for (const path of ['/overview', '/findings', '/organization', '/organization?tab=keys', '/integrations', `/reports?namespace=${NAMESPACE}`]) {
          const page = await open(path, size, scheme);
          if (path === '/findings') await page.getByRole('row').nth(1).waitFor();
          const name = `everywhere-${scheme}-${label}${path.replace(/[/?=&]/g, '-')}`;
          scans[name] = await seriousViolations(page);
          await screenshot(page, name);
          const background = (await page.evaluate(
            'getComputedStyle(document.body).backgroundColor || getComputedStyle(document.documentElement).backgroundColor',
          )) as string;
          const root = (await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')) as string;
          if (scheme === 'dark') expect([background, root], name).toContain('rgb(13, 17, 23)');
          await page.context().close();
        }
      }
    }
    expect(Object.fromEntries(Object.entries(scans).filter(([, v]) => v.length > 0))).toEqual({});
  }, 600_000);

  it("groups the organization sections in two rows of tabs: People, Access, Integrations, Settings, then the group's sections", async () => {
    const page = await open('/organization');
    const groups = page.getByRole('tablist', { name: 'Organization sections' });
    expect(await groups.getByRole('tab').allTextContents()).toEqual(['People', 'Access', 'Integrations', 'Settings']);
    for (const [group, tabs, first] of [
      ['People', ['Members', 'Teams', 'Invitations'], 'members'],
      ['Access', ['Service keys', 'Single sign-on', 'SCIM'], 'keys'],
      ['Integrations', ['Notifications', 'Run tasks'], 'notifications'],
      ['Settings', ['General', 'Model credentials', 'Analyzers', 'Audit log'], 'settings'],
    ] as const) {
      await groups.getByRole('tab', { name: group }).click();
      const sections = page.getByRole('tablist', { name: group });
      await sections.getByRole('tab', { name: tabs[0], selected: true }).waitFor();
      if (group !== 'People') await page.waitForURL(new RegExp(`tab=${first}$`)); // People's first section is the page's default
      expect(await sections.getByRole('tab').allTextContents()).toEqual(tabs);
      // Each row is one line at 1400 px: nothing wraps.
      for (const list of [groups, sections]) {
        const tops = await list.getByRole('tab').evaluateAll((els: any[]) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
        expect(new Set(tops).size, `${group} wraps`).toBe(1);
      }
    }
    await screenshot(page, 'everywhere-organization-settings-group');
    // A pasted link to a section opens its group.
    await page.goto(`${server.url}/organization?tab=scim`);
    await page.getByRole('tablist', { name: 'Access' }).getByRole('tab', { name: 'SCIM', selected: true }).waitFor();
    expect(await groups.getByRole('tab', { name: 'Access' }).getAttribute('aria-selected')).toBe('true');
    await page.context().close();
  }, 120_000);

  it('invites with one button: an absolute link to copy, or an existing account added at once', async () => {
    const page = await open('/organization');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite to the organization' });
    await dialog.getByLabel('Invitation link').waitFor();
    await screenshot(page, 'everywhere-invite-form');
    await dialog.getByRole('button', { name: 'Create invitation link' }).click();
    const link = (await dialog.getByTestId('invite-link').innerText()).trim();
    expect(link).toMatch(new RegExp(`^${server.url}/invite/pwi_`));
    await dialog.getByRole('button', { name: 'Copy link' }).waitFor();
    await screenshot(page, 'everywhere-invite-link');
    // The link works as it stands, pasted into a browser with no session.
    const { context: stranger } = await newContext(browser);
    const invited = await stranger.newPage();
    await invited.goto(link);
    await invited.getByText('You are invited to Everywhere').waitFor();
    await stranger.close();

    // An account that does not exist yet: a sentence saying to send a link instead.
    await dialog.getByRole('button', { name: 'Invite someone else' }).click();
    await dialog.getByLabel('Add an existing account now').check();
    await dialog.getByLabel('E-mail', { exact: true }).fill('nobody@example.com');
    await dialog.getByRole('button', { name: 'Add to organization' }).click();
    await dialog.getByText('No account on this server has that e-mail.').waitFor();

    await registerOverHttp(server.url, 'colleague@example.com', 'correct-horse-2');
    await dialog.getByLabel('E-mail', { exact: true }).fill('colleague@example.com');
    await dialog.getByRole('button', { name: 'Add to organization' }).click();
    await dialog.getByText('colleague@example.com is now a member of this organization.').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'colleague@example.com' }).waitFor();
    await page.context().close();
  }, 120_000);

  it('shows service keys with their last use, their expiry and copyable GitHub Actions and GitLab CI snippets for this server', async () => {
    const created = await apiJson(server.url, 'POST', '/auth/keys', { cookie, json: { name: 'ci', role: 'member' } });
    expect(created.status).toBe(201);
    expect((await apiJson(server.url, 'GET', '/findings', { key: created.body.key })).status).toBe(200);
    const page = await open('/organization?tab=keys');
    const row = page.getByRole('row', { name: /^ci member/ });
    await row.getByRole('cell', { name: 'never (revoke to end it)' }).waitFor();
    expect(await row.getByRole('cell').nth(3).innerText()).toMatch(/\d{4}/); // last used: the request above, not "never used"
    await page.getByText('GitHub Actions workflow', { exact: true }).click();
    const workflow = await page.locator('pre.snippet').first().innerText();
    expect(workflow).toContain(`server: ${server.url}`);
    expect(workflow).toContain('api-key: ${{ secrets.PLANWARDEN_API_KEY }}');
    expect(workflow).toMatch(/uses: [\w-]+\/planwarden@v1/);
    await page.getByText('GitLab CI job', { exact: true }).click();
    const gitlab = await page.locator('pre.snippet').nth(1).innerText();
    expect(gitlab).toContain(`PLANWARDEN_SERVER: ${server.url}`);
    expect(gitlab).toContain('planwarden.js analyze plan.json --server "$PLANWARDEN_SERVER"');
    await page.getByRole('button', { name: 'Copy GitLab CI job' }).waitFor();
    await page.context().close();
  }, 120_000);

  it('turns an error the user caused into a sentence with the fix, never a bare HTTP status', async () => {
    const page = await open('/organization?tab=keys');
    await page.getByLabel('Key name').fill('bad-allowlist');
    await page.getByLabel('IP allowlist (optional)').fill('not-an-address');
    await page.getByRole('button', { name: 'Create key' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Correct the values the message names and try again.' });
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('IP allowlist, entry 1: not an IP address or CIDR block.');
    expect(text).not.toMatch(/Something went wrong|HTTP \d{3}/);
    expect(text.length).toBeGreaterThan('Correct the values the message names and try again.'.length + 5); // the server's detail is kept
    await screenshot(page, 'everywhere-user-error');
    await page.context().close();
  }, 120_000);

  it('links every integration from one hub; GitHub connects through "Install on GitHub", never a typed id', async () => {
    const page = await open('/integrations');
    for (const [name, href] of [
      ['GitHub', '/integrations/codehost'],
      ['Single sign-on', '/organization?tab=sso'],
      ['SCIM provisioning', '/organization?tab=scim'],
      ['Notifications', '/organization?tab=notifications'],
      ['HCP Terraform run tasks', '/organization?tab=run-tasks'],
    ] as const) {
      expect(await page.getByRole('link', { name, exact: true }).getAttribute('href'), name).toBe(href);
    }
    await page.getByText('not connected').waitFor();
    await page.getByRole('link', { name: 'GitHub', exact: true }).click();
    await page.getByRole('button', { name: 'Install on GitHub' }).waitFor();
    expect(await page.getByLabel('Installation id').count()).toBe(0); // only a platform administrator binds by id
    await page.context().close();
  }, 120_000);

  it('says "checks only" for a checks-only job and how many findings triage hides in a report', async () => {
    const jobs = await open('/jobs');
    await jobs.getByRole('cell', { name: 'deterministic checks only' }).first().waitFor();
    expect(await jobs.getByText('none · none').count()).toBe(0);
    await jobs.context().close();

    const page = await open(`/reports?namespace=${NAMESPACE}`);
    const note = page.getByTestId('hidden-by-triage');
    await note.getByText('1 finding hidden by triage').waitFor();
    expect(await note.innerText()).toContain('1 suppressed, 0 false positive');
    await note.getByRole('button', { name: 'Show them in the report' }).click();
    await page.waitForURL(/hidden=shown/);
    await note.getByRole('button', { name: 'Hide them again' }).waitFor();
    expect(await note.getByRole('link', { name: 'Review them in Findings' }).getAttribute('href')).toBe(`/findings?namespace=${NAMESPACE}&status=suppressed`);
    await page.context().close();
  }, 120_000);
});
