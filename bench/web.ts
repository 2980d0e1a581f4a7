/**
 * Dashboard budgets (issue 9), printed, not asserted:
 * - initial JavaScript: the gzipped size of the scripts apps/web/dist/index.html loads before
 *   any route chunk (budget ≤ 250 KB);
 * - `/findings` with 10,000 findings in the org: milliseconds from navigation until the table
 *   shows its first rows and answers `j` (budget ≤ 1.5 s; the rest loads in the background), when
 *   all rows are in, and the longest animation frame while scrolling the whole list.
 *   `BENCH_VERBOSE=1` also prints when each API request finished.
 * Run: `npx tsx bench/web.ts` (needs `npm run build:web` and /usr/bin/chromium).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DASHBOARD_DIST } from '../server/src/http/dashboard';
import { startTestServer } from '../tests/helpers/test-server';
import { launch, newContext } from '../tests/web/browser';

const FINDINGS = 10_000;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;

function initialJsGzipKb(): number {
  const html = readFileSync(join(DASHBOARD_DIST, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+\.js)"/g)].map((m) => m[1]);
  return scripts.reduce((n, src) => n + gzipSync(readFileSync(join(DASHBOARD_DIST, src))).length, 0) / 1024;
}

async function main(): Promise<void> {
  console.log(`initial JS (gzip): ${initialJsGzipKb().toFixed(1)} KB (budget 250 KB)`);
  const server = await startTestServer();
  const { engine } = server.services;
  const orgId = 'default';
  const now = new Date().toISOString();
  for (let i = 0; i < FINDINGS; i += 1) {
    await engine.stores.findings.observe(orgId, {
      resource_hash: `h${String(i).padStart(6, '0')}`, rule_id: `TF-BENCH-${i % 40}`, resource_address: `aws_s3_bucket.b${i}`,
      severity: SEVERITIES[i % 5], title: `Bench finding ${i}`, confidence: 'HIGH', initialStatus: 'open',
    }, now);
  }
  const browser = await launch();
  try {
    const { context } = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${server.url}/overview`); // warm the HTTP cache of the shell as a returning user has it
    const started = Date.now();
    const apiTimes: string[] = [];
    page.on('requestfinished', (r) => { if (r.url().includes('/api/v1/')) apiTimes.push(`${new URL(r.url()).pathname}${new URL(r.url()).search} +${Date.now() - started} ms`); });
    await page.goto(`${server.url}/findings`);
    await page.locator('tr[data-finding]').first().waitFor({ timeout: 60_000 }).catch(async (e) => { console.log(page.url(), (await page.locator('main').innerText().catch(() => ''))); throw e; });
    const firstRows = Date.now() - started;
    await page.keyboard.press('j');
    await page.locator('tr.active').waitFor();
    const interactive = Date.now() - started;
    console.log(`/findings first rows shown: ${firstRows} ms`);
    if (process.env.BENCH_VERBOSE) console.log(apiTimes.join('\n'));
    console.log(`/findings with ${FINDINGS} findings interactive: ${interactive} ms (budget 1500 ms)`);
    // The rest of the list loads in the background: scroll once it is all there.
    await page.getByRole('status').filter({ hasText: `${FINDINGS.toLocaleString('en-US')} findings` }).filter({ hasNotText: 'loading more' }).waitFor({ timeout: 60_000 });
    console.log(`all ${FINDINGS} rows loaded: ${Date.now() - started} ms`);
    // Browser-side code as a string: the root tsconfig has no DOM library.
    const longest = await page.evaluate(`(async () => {
      const el = document.querySelector('[data-testid="findings-scroll"]');
      let last = performance.now();
      let worst = 0;
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 2) {
        el.scrollTop += el.clientHeight;
        await new Promise((r) => requestAnimationFrame(r));
        const t = performance.now();
        worst = Math.max(worst, t - last);
        last = t;
      }
      return worst;
    })()`) as number;
    console.log(`longest frame while scrolling the whole list: ${longest.toFixed(1)} ms`);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
