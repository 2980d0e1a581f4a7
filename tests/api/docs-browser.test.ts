import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/test-server';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Opens `path` in headless Chromium. Every request leaving 127.0.0.1 is aborted and recorded:
 * the pages must work from the server alone (no CDN).
 */
async function open(browser: Browser, server: TestServer, path: string): Promise<{ page: Page; external: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const external: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    external.push(url.href);
    return route.abort();
  });
  await page.goto(`${server.url}${path}`);
  return { page, external };
}

describe.skipIf(!existsSync(CHROMIUM))('interactive API references in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    // Auth on: the references are public (the document carries no secrets).
    server = await startTestServer({ overrides: { auth: { enabled: true } } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('Swagger UI at /api/v1/docs renders the operations', async () => {
    const { page, external } = await open(browser, server, '/api/v1/docs');
    // Tags start collapsed (docExpansion none): open one, as a reader would.
    await page.locator('.opblock-tag[data-tag="jobs"]').click({ timeout: 90_000 });
    await page.locator('.opblock-summary-path[data-path="/jobs/{job_id}"]').first().waitFor({ timeout: 90_000 });
    expect(await page.locator('.opblock-tag').count()).toBeGreaterThan(10);
    await expect.poll(() => page.locator('.info .title').innerText()).toContain('Planwarden API');
    await page.screenshot({ path: '/tmp/docs-swagger.png', fullPage: false });
    expect(external).toEqual([]);
    await page.close();
  }, 120_000);

  it('ReDoc at /api/v1/redoc renders the operations', async () => {
    const { page, external } = await open(browser, server, '/api/v1/redoc');
    await page.getByText('/jobs/{job_id}/cancel').first().waitFor({ state: 'attached', timeout: 90_000 });
    await expect.poll(() => page.locator('h1').first().innerText()).toContain('Planwarden API');
    await page.screenshot({ path: '/tmp/docs-redoc.png', fullPage: false });
    expect(external).toEqual([]);
    await page.close();
  }, 120_000);
});
