/**
 * Browser helpers for the dashboard tests: Debian's Chromium through playwright-core, every
 * request off 127.0.0.1 aborted and recorded, an axe-core scan, and screenshots saved under
 * tests/web/artifacts/ (git-ignored) as test artefacts.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
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
export const ARTIFACTS = join(import.meta.dirname, 'artifacts');
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js', { paths: [join(import.meta.dirname, '../../apps/web')] }),
  'utf8',
);

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A fresh browser context (its own cookie jar) whose requests may only reach 127.0.0.1. */
export async function newContext(browser: Browser): Promise<{ context: BrowserContext; external: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(90_000); // a loaded 2-core machine
  const external: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || ['data:', 'blob:', 'about:'].includes(url.protocol)) return route.continue();
    external.push(url.href);
    return route.abort();
  });
  return { context, external };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page (injected through the DevTools protocol, which the page's CSP does
 * not govern) and returns the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${AXE_SOURCE}\n;undefined`);
  // Browser-side code as a string: the root tsconfig has no DOM library.
  const violations = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)')) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target })) }));
}

/** Saves a full-page screenshot as tests/web/artifacts/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
