/**
 * Dashboard budgets (issue 9), printed, not asserted:
 * - initial JavaScript: the gzipped size of the scripts apps/web/dist/index.html loads before
 *   any route chunk (budget ≤ 250 KB);
 * - `/findings` with 10,000 findings in the org: milliseconds from navigation until the table
 *   shows its first rows and answers `j` (budget ≤ 1.5 s; the rest loads in the background), when
 *   all rows are in, and the longest animation frame while scrolling the whole list one screen
 *   per frame (with the 95th percentile and how many frames passed 50 ms, so one stall shows
 *   apart from a slow list). Median of {@link RUNS} navigations, each in a fresh browser context.
 * The server runs as its own process the way `npm start` runs it (sqlite, auth off), seeded by
 * bench/findings-list.bench.ts's seedFindings, so the browser driver and the server do not share
 * an event loop. `BENCH_VERBOSE=1` also prints when each API request finished.
 * Run: `npx tsx bench/run-all.ts web` (recorded in RESULTS.md) or `npx tsx bench/web.ts`;
 * needs `npm run build:web` and /usr/bin/chromium.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { DASHBOARD_DIST } from '../server/src/http/dashboard';
import { launch, newContext } from '../tests/web/browser';
import { seedFindings } from './findings-list.bench';
import { median, ms, startServerChild, type BenchRow } from './lib';

const FINDINGS = 10_000;
const RUNS = 3;
const BUDGET_JS_KB = 250;
const BUDGET_INTERACTIVE_MS = 1500;
/** One frame at 60 Hz is 16.7 ms; a frame past 50 ms is a visible hitch (RAIL's "response"). */
const HITCH_MS = 50;

/** Gzipped KB of every script index.html loads or modulepreloads (the initial JavaScript). */
export function initialJsGzipKb(dist: string = DASHBOARD_DIST): number {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+\.js)"/g)].map((m) => m[1]);
  return scripts.reduce((n, src) => n + gzipSync(readFileSync(join(dist, src))).length, 0) / 1024;
}

/** The longest long animation frame of a scroll: its ms in all, in scripts, and from style/layout to its end. */
interface Loaf {
  duration: number;
  script: number;
  styleLayout: number;
  blocking: number;
}
interface Run {
  firstRows: number;
  interactive: number;
  allRows: number;
  frames: number[];
  worst: Loaf | null;
}

/** One cold navigation to /findings in a fresh context (the shell's files warmed by /overview first). */
async function measure(browser: Browser, url: string, verbose: boolean, log: (line: string) => void): Promise<Run> {
  const { context } = await newContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(`${url}/overview`); // warm the HTTP cache of the shell as a returning user has it
    await page.locator('#page-title').waitFor();
    const started = Date.now();
    const apiTimes: string[] = [];
    page.on('requestfinished', (r) => {
      if (r.url().includes('/api/v1/')) apiTimes.push(`${new URL(r.url()).pathname}${new URL(r.url()).search} +${Date.now() - started} ms`);
    });
    await page.goto(`${url}/findings`);
    await page.locator('tr[data-finding]').first().waitFor({ timeout: 60_000 });
    const firstRows = Date.now() - started;
    await page.keyboard.press('j');
    await page.locator('tr.active').waitFor();
    const interactive = Date.now() - started;
    // The rest of the list loads in the background: scroll once it is all there.
    await page
      .getByRole('status')
      .filter({ hasText: `${FINDINGS.toLocaleString('en-US')} findings` })
      .filter({ hasNotText: 'loading more' })
      .waitFor({ timeout: 60_000 })
      .catch(async (e: unknown) => {
        log(
          `  status line at the timeout: ${await page
            .getByRole('status')
            .first()
            .innerText()
            .catch(() => '?')}\n${apiTimes.join('\n')}`,
        );
        throw e;
      });
    const allRows = Date.now() - started;
    if (verbose) log(apiTimes.join('\n'));
    // Browser-side code as a string: the root tsconfig has no DOM library. Two frames settle first.
    // Long animation frames (> 50 ms, Chromium's LoAF entries) are split into script and style/layout time.
    const { frames, worst } = (await page.evaluate(`(async () => {
      const el = document.querySelector('[data-testid="findings-scroll"]');
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const loafs = [];
      const observer = typeof PerformanceObserver === 'function' && PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')
        ? new PerformanceObserver((list) => loafs.push(...list.getEntries())) : null;
      observer?.observe({ type: 'long-animation-frame' });
      await frame(); await frame();
      let last = performance.now();
      const out = [];
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 2) {
        el.scrollTop += el.clientHeight;
        await frame();
        const t = performance.now();
        out.push(t - last);
        last = t;
      }
      await frame();
      observer?.disconnect();
      const w = loafs.sort((a, b) => b.duration - a.duration)[0];
      const worst = w ? { duration: w.duration, script: w.scripts.reduce((n, s) => n + s.duration, 0),
        styleLayout: w.styleAndLayoutStart ? w.startTime + w.duration - w.styleAndLayoutStart : 0, blocking: w.blockingDuration ?? 0 } : null;
      return { frames: out, worst };
    })()`)) as { frames: number[]; worst: Loaf | null };
    return { firstRows, interactive, allRows, frames, worst };
  } finally {
    await context.close();
  }
}

/**
 * The dashboard's budgets as bench rows (item "9 dashboard"): initial JS gzipped, /findings
 * interactive with 10,000 findings (median of {@link RUNS}), all rows loaded, and the longest
 * frame scrolling the whole list (worst run), with the load average in the notes.
 * Throws when the dashboard is not built or Chromium is missing.
 */
export async function benchWeb(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const js = initialJsGzipKb();
  log(`  initial JS (gzip): ${js.toFixed(1)} KB (budget ${BUDGET_JS_KB} KB)`);
  const server = await startServerChild({}, { seed: (dir) => seedFindings(dir, FINDINGS) });
  const browser = await launch();
  const runs: Run[] = [];
  try {
    for (let i = 0; i < RUNS; i += 1) {
      const run = await measure(browser, server.url, process.env.BENCH_VERBOSE === '1', log);
      const sorted = [...run.frames].sort((a, b) => a - b);
      log(
        `  run ${i + 1}: first rows ${run.firstRows} ms, interactive ${run.interactive} ms, all ${FINDINGS} rows ${run.allRows} ms; ` +
          `${run.frames.length} frames scrolling, longest ${ms(sorted.at(-1) ?? 0)}, p95 ${ms(sorted[Math.floor(sorted.length * 0.95)] ?? 0)}, ${run.frames.filter((f) => f > HITCH_MS).length} over ${HITCH_MS} ms` +
          (run.worst ? `; longest LoAF ${ms(run.worst.duration)} (scripts ${ms(run.worst.script)}, style+layout+paint ${ms(run.worst.styleLayout)})` : ''),
      );
      runs.push(run);
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  const load = `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} at the end`;
  log(`  ${load}`);
  const interactive = median(runs.map((r) => r.interactive));
  const allFrames = runs.flatMap((r) => r.frames).sort((a, b) => a - b);
  const longest = allFrames.at(-1) ?? 0;
  const note = `${RUNS} runs, median; ${load}`;
  return [
    {
      item: '9 dashboard',
      figure: 'initial JavaScript (gzip)',
      value: `${js.toFixed(1)} KB`,
      baseline: '-',
      target: `≤ ${BUDGET_JS_KB} KB`,
      pass: js <= BUDGET_JS_KB,
    },
    {
      item: '9 dashboard',
      figure: `/findings interactive, ${FINDINGS} findings`,
      value: ms(interactive, 0),
      baseline: `first rows ${ms(median(runs.map((r) => r.firstRows)), 0)}`,
      target: `≤ ${BUDGET_INTERACTIVE_MS} ms`,
      pass: interactive <= BUDGET_INTERACTIVE_MS,
      note,
    },
    {
      item: '9 dashboard',
      figure: `all ${FINDINGS} rows loaded`,
      value: ms(median(runs.map((r) => r.allRows)), 0),
      baseline: '-',
      target: '-',
      pass: null,
      note,
    },
    {
      item: '9 dashboard',
      figure: 'longest frame scrolling the whole list',
      value: ms(longest),
      baseline: `p95 ${ms(allFrames[Math.floor(allFrames.length * 0.95)] ?? 0)}`,
      target: 'report',
      pass: null,
      note: `worst of ${RUNS} runs, ${allFrames.filter((f) => f > HITCH_MS).length} of ${allFrames.length} frames over ${HITCH_MS} ms; ${load}`,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchWeb().then(
    (rows) => console.table(rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
