/**
 * Issue 9: the Rules page. An admin edits a custom rule (title and severity) and the API serves
 * the edit; reviewers' rejections of another rule produce a proposal (as in
 * tests/api/triage-scenario.test.ts), whose diff the admin reads and applies in the dashboard,
 * and the API then shows the proposal applied and the rule amended.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';
import { CHROMIUM, launch, newContext, screenshot, seriousViolations } from './browser';

const BUILT = existsSync(fileURLToPath(new URL('../../apps/web/dist/index.html', import.meta.url)));
const NAMESPACE = 'rules-page';
const MIN_SAMPLES = 3;
const PLAN = JSON.stringify({
  format_version: '1.2',
  resource_changes: ['a', 'b', 'c'].map((name) => ({
    address: `aws_s3_bucket.${name}`,
    mode: 'managed',
    type: 'aws_s3_bucket',
    name,
    change: { actions: ['create'], before: null, after: { bucket: name, acl: 'public-read' }, after_unknown: {} },
  })),
});

type Rule = { rule_id: string; title: string; severity: string; description: string };

describe.skipIf(!existsSync(CHROMIUM) || !BUILT)('rules page', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let edited: Rule;
  let noisy: Rule;

  async function json<T>(path: string, init?: Parameters<TestServer['api']>[1]): Promise<T> {
    const res = await server.api(path, init);
    expect(res.status, `${path}: ${res.status}`).toBeLessThan(300);
    return res.json() as Promise<T>;
  }

  beforeAll(async () => {
    server = await startTestServer({ overrides: { rule_health: { min_samples: MIN_SAMPLES } } });
    browser = await launch();
    page = await (await newContext(browser)).context.newPage();
    const category = await json<{ category_id: string }>('/orgs/default/rule-categories', { method: 'POST', json: { name: 'Web page rules' } });
    const rule = (title: string) =>
      json<Rule>('/orgs/default/rules', {
        method: 'POST',
        json: { title, description: 'Flag public buckets.', category: category.category_id, severity: 'HIGH', analyzers: ['terraform'] },
      });
    edited = await rule('Bucket is public');
    noisy = await rule('Bucket ACL is noisy');
    // Three rejections of the noisy rule (min_samples 3): precision 0 → a description amendment.
    expect((await server.api(`/terraform/${NAMESPACE}/ingest`, { method: 'POST', body: PLAN })).status).toBe(201);
    const resources = await json<{ hash: string; value: { name: string } }[]>(`/${NAMESPACE}/resources`);
    expect(resources).toHaveLength(MIN_SAMPLES);
    for (const r of resources) {
      const finding = {
        title: 'Public bucket',
        severity: 'HIGH',
        rule_id: noisy.rule_id,
        risk: 'r',
        why_it_matters: 'w',
        suggested_next_step: 'n',
        confidence: 'HIGH',
        evidence: [],
        resource_address: r.value.name,
        tags: [],
      };
      await json(`/resource/${r.hash}/analysis`, { method: 'PUT', json: { summary: 's', findings: [finding] } });
      await json(`/findings/${r.hash}/${encodeURIComponent(noisy.rule_id)}`, {
        method: 'PATCH',
        json: { status: 'false_positive', reason_code: 'false_positive', note: 'static website bucket' },
      });
    }
    expect((await json<{ created: number }>('/rule-proposals/refresh', { method: 'POST' })).created).toBe(1);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  }, 60_000);

  it('edits a custom rule: the API serves the new title and severity', async () => {
    await page.goto(`${server.url}/rules?tab=custom`);
    const row = page.locator('li.rule', { hasText: edited.rule_id });
    await row.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: `Edit ${edited.rule_id}` });
    await form.getByLabel('Title').fill('Bucket is world-readable');
    await form.getByLabel('Severity').selectOption('CRITICAL');
    await screenshot(page, 'rules-edit');
    await form.getByRole('button', { name: 'Save rule' }).click();
    await row.getByText('Bucket is world-readable').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const after = await json<Rule>(`/orgs/default/rules/${encodeURIComponent(edited.rule_id)}`);
    expect(after).toMatchObject({ title: 'Bucket is world-readable', severity: 'CRITICAL', description: 'Flag public buckets.' });
  }, 120_000);

  it('shows a proposal as a diff and applies it: the API shows it applied and the rule amended', async () => {
    await page.goto(`${server.url}/rules?tab=proposals`);
    const diff = page.getByLabel(`Proposed change to ${noisy.rule_id}`);
    await diff.waitFor();
    const text = await diff.innerText();
    expect(text).toContain('  Flag public buckets.'); // the current description, as context
    expect(text).toMatch(/^\+ Reviewer calibration for /m);
    expect(text).toContain('static website bucket');
    await screenshot(page, 'rules-proposal');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Apply proposal for ${noisy.rule_id}` }).click();
    await page.getByText(`Applied: the rule ${noisy.rule_id} is updated`).waitFor();
    await page.getByText('No pending proposals.').waitFor();
    await screenshot(page, 'rules-proposal-applied');

    const applied = await json<{ proposals: { rule_id: string; status: string }[] }>('/rule-proposals?status=applied');
    expect(applied.proposals).toEqual([expect.objectContaining({ rule_id: noisy.rule_id, status: 'applied' })]);
    const rule = await json<Rule>(`/orgs/default/rules/${encodeURIComponent(noisy.rule_id)}`);
    expect(rule.description).toMatch(/^Flag public buckets\.\n\nReviewer calibration for /);
  }, 120_000);
});
