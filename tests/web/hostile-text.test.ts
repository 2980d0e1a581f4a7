/**
 * Issue 9 "Security": every LLM-written string and every unit body is rendered as text, never as
 * HTML. A client-led analysis submits findings whose title, risk and summary carry markup and a
 * script payload; the findings workbench must show them as literal text and run nothing.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';
import { CHROMIUM, launch, newContext, screenshot } from './browser';

const BUILT = existsSync(fileURLToPath(new URL('../../apps/web/dist/index.html', import.meta.url)));
const NAMESPACE = 'hostile-text';
const PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>';
const PLAN = JSON.stringify({
  format_version: '1.2',
  resource_changes: [
    {
      address: 'aws_s3_bucket.logs',
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'logs',
      change: { actions: ['create'], before: null, after: { bucket: 'logs', acl: 'public-read' }, after_unknown: {} },
    },
  ],
});

describe.skipIf(!existsSync(CHROMIUM) || !BUILT)('hostile model output in the dashboard', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launch();
    page = await (await newContext(browser)).context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  }, 60_000);

  it('shows markup in titles, risks and summaries as text and runs no script', async () => {
    expect((await server.api(`/terraform/${NAMESPACE}/ingest`, { method: 'POST', body: PLAN })).status).toBe(201);
    const unit = (await (await server.api(`/${NAMESPACE}/resource/next`)).json()) as { hash: string };
    const ruleId = /^## (TF-AWS-S3-[A-Z0-9-]+)/m.exec(await (await server.api('/terraform/rules?type=aws')).text())![1];
    const put = await server.api(`/resource/${unit.hash}/analysis`, {
      method: 'PUT',
      json: {
        summary: `Summary ${PAYLOAD}`,
        findings: [
          {
            title: `Title ${PAYLOAD}`,
            severity: 'HIGH',
            rule_id: ruleId,
            risk: `Risk ${PAYLOAD}`,
            why_it_matters: `Why ${PAYLOAD}`,
            suggested_next_step: `Next ${PAYLOAD}`,
            confidence: 'HIGH',
            evidence: [],
            resource_address: 'aws_s3_bucket.logs',
            tags: [],
          },
        ],
      },
    });
    expect(put.status).toBe(200);

    await page.goto(`${server.url}/findings?namespace=${NAMESPACE}`);
    const row = page.locator('tr[data-finding]').first();
    await row.waitFor();
    await row.click();
    await page.getByText(`Risk ${PAYLOAD}`).waitFor();
    await screenshot(page, 'hostile-text');

    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    // The payload's elements never became elements: no <img src=x>, no injected <b>.
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.locator('b', { hasText: 'bold' }).count()).toBe(0);
    const text = await page.locator('body').innerText();
    expect(text).toContain(`Title ${PAYLOAD}`);
    expect(text).toContain(`Risk ${PAYLOAD}`);
  }, 120_000);
});
