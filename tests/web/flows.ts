/**
 * Steps the dashboard browser tests share: an axe-and-screenshot recorder, signing in through
 * the login page, answering a confirmation dialog, moving focus with the Tab key alone, and plain-fetch calls against a server
 * process (register, JSON with a cookie or key), the way a user's curl would.
 */
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { corpusFile } from '../corpus';
import { screenshot, seriousViolations, type AxeViolation } from './browser';

/** Scans every recorded page with axe and saves its screenshot under tests/web/artifacts/. */
export class Recorder {
  readonly scans: Record<string, AxeViolation[]> = {};

  /** Waits for the network to settle, scans with axe and saves `<name>.png`. */
  async record(page: Page, name: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    this.scans[name] = await seriousViolations(page);
    await screenshot(page, name);
  }

  /** Asserts at least `min` pages were scanned and none had a serious or critical violation. */
  expectClean(min: number): void {
    expect(Object.keys(this.scans).length).toBeGreaterThanOrEqual(min);
    expect(Object.fromEntries(Object.entries(this.scans).filter(([, v]) => v.length > 0))).toEqual({});
  }
}

/** Signs in on /login (optionally with `next`) and waits to leave the login page. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string, next?: string): Promise<void> {
  await page.goto(`${baseUrl}/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

/** Presses the button named `label`, then the dialog's confirm button (`confirm`, default the same label). */
export async function confirmAction(page: Page, label: string, confirm: string = label): Promise<void> {
  await page.getByRole('button', { name: label, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: confirm, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** Whether `target` has the keyboard focus. */
export function isFocused(target: Locator): Promise<boolean> {
  // `any`: the root tsconfig has no DOM library.
  return target.evaluate((el: any) => el === el.ownerDocument.activeElement);
}

/**
 * Presses Tab (Shift+Tab with `back`) until `target` has the focus, as a keyboard-only user
 * would; fails after `max` presses (the element is not reachable by keyboard).
 */
export async function tabTo(page: Page, target: Locator, options: { back?: boolean; max?: number } = {}): Promise<void> {
  const max = options.max ?? 80;
  for (let i = 0; i < max; i += 1) {
    if (await isFocused(target)) return;
    await page.keyboard.press(options.back ? 'Shift+Tab' : 'Tab');
  }
  expect.fail(`${target.toString()} was not reached with ${max} presses of Tab`);
}

/** `fetch` of `${baseUrl}/api/v1${path}` with JSON in and out; `auth` is a cookie or an API key header. */
export async function apiJson(baseUrl: string, method: string, path: string, options: { json?: unknown; cookie?: string; key?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (options.cookie) headers.cookie = options.cookie;
  if (options.key) headers['x-api-key'] = options.key;
  const res = await fetch(`${baseUrl}/api/v1${path}`, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? null };
}

/** Registers an account over HTTP (POST /auth/register) and returns its session cookie and user id. */
export async function registerOverHttp(baseUrl: string, email: string, password: string, orgName?: string) {
  const res = await apiJson(baseUrl, 'POST', '/auth/register', {
    json: { email, password, name: email.split('@')[0], ...(orgName ? { org_name: orgName } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { cookie: res.cookie!, userId: res.body.user_id as string, orgId: res.body.org_id as string | null };
}

/** Drops the corpus plan `corpusPath` on the Analyse page's drop zone as `plan.json`, as a person drags a file onto the window. */
export async function dropCorpusPlan(page: Page, corpusPath: string): Promise<void> {
  const base64 = corpusFile(corpusPath).toString('base64');
  const dataTransfer = await page.evaluateHandle(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob('${base64}'), (c) => c.charCodeAt(0))], 'plan.json', { type: 'application/json' }));
    return dt;
  })()`);
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer });
  await page.getByText('Loaded plan.json').waitFor();
}
