/**
 * The setup the desktop browser tests share (tests/web/desktop-*.test.ts, issue 10 "Browser
 * tests"): the renderer build (electron-vite's renderer build of apps/desktop/src/renderer: the
 * dashboard with the IPC transport installed first) loaded in Chromium, with
 * `window.planwarden.request` — what the preload exposes — bound through Playwright's
 * exposeFunction to the bridge of a booted desktop core (apps/desktop/src/core/desktop-app.ts on a
 * temporary folder), and a real team server (its own process, auth on, a service key).
 *
 * Assets are served by `page.route` from the build folder at https://planwarden.test, with the
 * file choice (core/renderer-files.ts) and the CSP of the desktop's `app:` protocol handler; no
 * socket serves them. Every request the pages make is recorded (`pageRequests`), as is every
 * request that crossed the bridge (`bridged`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDesktopApp, type DesktopApp } from '../../apps/desktop/src/core/desktop-app';
import { RENDERER_CSP, rendererFile } from '../../apps/desktop/src/core/renderer-files';
import { buildDesktopTarget, buildToolMissing, REPO_ROOT } from '../desktop/build';
import { unusedPort } from '../desktop/ports';
import { fakeSafeStorage } from '../desktop/fake-safe-storage';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { CHROMIUM, launch, newContext, screenshot, seriousViolations, type AxeViolation } from './browser';

export const ORIGIN = 'https://planwarden.test';
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** Why the desktop browser tests cannot run here (no Chromium, no electron-vite), or null. */
export const desktopBrowserMissing: string | null = !existsSync(CHROMIUM) ? `Chromium is not installed at ${CHROMIUM}` : buildToolMissing();

export interface DesktopHarness {
  readonly context: BrowserContext;
  /** Requests the context aborted because they left 127.0.0.1 (browser.ts). */
  readonly external: string[];
  /** `METHOD url` of every request any page made. */
  readonly pageRequests: string[];
  /** `METHOD path` of every request that crossed a bridge. */
  readonly bridged: string[];
  /** Serious and critical axe violations per recorded page name. */
  readonly scans: Record<string, AxeViolation[]>;
  /** A new page of the desktop renderer whose `window.planwarden.request` is `app`'s bridge. */
  desktopPage(app: DesktopApp): Promise<Page>;
  /** Waits for the page title, scans it with axe and saves tests/web/artifacts/<name>.png. */
  record(name: string, page: Page): Promise<void>;
  /** A desktop core on a new temporary folder (removed by close) with Ollama at `ollamaHost`. */
  bootDesktop(ollamaHost: string, options?: { now?: () => Date }): Promise<DesktopApp & { readonly userDataDir: string }>;
  /** Closes the browser and every desktop core booted here, removes the build and the folders. */
  close(): Promise<void>;
}

/**
 * Builds the renderer into a folder of its own (never racing `npm run desktop:build`), launches
 * Chromium with a context that may only reach 127.0.0.1. Throws what the build or launch throws.
 */
export async function startDesktopHarness(): Promise<DesktopHarness> {
  const outRoot = join(REPO_ROOT, 'apps/desktop/out', `.test-renderer-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(outRoot, { recursive: true });
  const renderer = await buildDesktopTarget('renderer', outRoot);
  const browser: Browser = await launch();
  const { context, external } = await newContext(browser);
  const pageRequests: string[] = [];
  const bridged: string[] = [];
  const scans: Record<string, AxeViolation[]> = {};
  const apps: DesktopApp[] = [];
  const dirs: string[] = [outRoot];
  context.on('request', (r) => pageRequests.push(`${r.method()} ${r.url()}`));

  return {
    context,
    external,
    pageRequests,
    bridged,
    scans,
    async desktopPage(app) {
      const p = await context.newPage();
      await p.route(`${ORIGIN}/**`, async (route) => {
        const file = rendererFile(renderer, new URL(route.request().url()).pathname);
        if (file === null) return route.fulfill({ status: 404, body: 'Not found' });
        return route.fulfill({
          status: 200,
          body: readFileSync(file),
          headers: {
            'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
            'content-security-policy': RENDERER_CSP,
            'x-content-type-options': 'nosniff',
          },
        });
      });
      await p.exposeFunction('planwardenBridge', async (request: { method: string; path: string }) => {
        bridged.push(`${request.method} ${request.path}`);
        return app.bridge(request);
      });
      // What the preload exposes (apps/desktop/src/preload/index.ts): one frozen `request` function.
      await p.addInitScript(`Object.defineProperty(window, 'planwarden', { value: Object.freeze({ request: (r) => window.planwardenBridge(r) }) });`);
      return p;
    },
    async record(name, page) {
      await page.locator('#page-title').waitFor();
      scans[name] = await seriousViolations(page);
      await screenshot(page, name);
    },
    async bootDesktop(ollamaHost, options = {}) {
      const userDataDir = mkdtempSync(join(tmpdir(), 'pw-desktop-browser-'));
      dirs.push(userDataDir);
      const app = await startDesktopApp({
        userDataDir,
        ollamaHost,
        safeStorage: fakeSafeStorage(),
        sleep: async () => {},
        pollIntervalMs: 50,
        now: options.now,
      });
      apps.push(app);
      return Object.assign(app, { userDataDir });
    },
    async close() {
      await browser.close();
      for (const app of apps) await app.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** A team server as the README starts it (own process, auth on, sqlite in `dataDir`) and an admin service key of its org. */
export interface TeamServer {
  /** `http://127.0.0.1:<port>` (the same across stop/start). */
  readonly url: string;
  readonly serviceKey: string;
  /** fetch against the team's `/api/v1${path}` with the service key. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** SIGTERM and wait (the team server is down). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data (the service key still works). */
  start(): Promise<void>;
}

/**
 * Starts the team server on a fixed free port (a second process: light-my-request re-parents
 * Express's shared request prototype in the process that injects, the desktop core's bridge) and
 * creates an admin service key with the bootstrap key. Throws when the key cannot be created.
 */
export async function startTeamServer(options: { dataDir: string; fake: FakeProvider }): Promise<TeamServer> {
  const bootstrap = `bootstrap-key-${Math.random().toString(36).slice(2)}`;
  const env = { PLANWARDEN_PORT: String(await unusedPort()), PLANWARDEN_AUTH_ENABLED: 'true', PLANWARDEN_AUTH_API_KEY: bootstrap };
  let server: ServerProcess | null = await spawnServer({ dataDir: options.dataDir, fake: options.fake, env });
  const key = await server.api('/auth/keys', { method: 'POST', headers: { 'x-api-key': bootstrap }, json: { role: 'admin', name: 'laptop-sync' } });
  if (key.status !== 201) throw new Error(`creating the service key: HTTP ${key.status} ${await key.text()}`);
  const serviceKey = ((await key.json()) as { key: string }).key;
  const url = server.url;
  return {
    url,
    serviceKey,
    api: (path, init = {}) =>
      fetch(`${url}/api/v1${path}`, {
        ...init,
        headers: {
          ...(init.headers as Record<string, string>),
          'x-api-key': serviceKey,
          ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.json === undefined ? init.body : JSON.stringify(init.json),
      }),
    async stop() {
      await server?.stop();
      server = null;
    },
    async start() {
      server ??= await spawnServer({ dataDir: options.dataDir, fake: options.fake, env });
    },
  };
}

/** What every desktop browser file starts: the harness, a fake provider, a team server and one desktop core with its page. */
export interface DesktopWorld {
  readonly h: DesktopHarness;
  readonly fake: FakeProvider;
  readonly team: TeamServer;
  /** Booted with Ollama at the fake provider. */
  readonly desktop: DesktopApp & { readonly userDataDir: string };
  readonly page: Page;
  /** Stops all of the above and removes the team server's folder. */
  close(): Promise<void>;
}

/** Starts a DesktopWorld (the team server on a new temporary folder). Throws what any part throws. */
export async function startDesktopWorld(): Promise<DesktopWorld> {
  const h = await startDesktopHarness();
  const fake = await startFakeProvider();
  const teamDir = mkdtempSync(join(tmpdir(), 'pw-team-'));
  const team = await startTeamServer({ dataDir: teamDir, fake });
  const desktop = await h.bootDesktop(fake.ollamaHost);
  const page = await h.desktopPage(desktop);
  return {
    h,
    fake,
    team,
    desktop,
    page,
    async close() {
      await h.close();
      await team.stop();
      await fake.close();
      rmSync(teamDir, { recursive: true, force: true });
    },
  };
}

export { dropCorpusPlan } from './flows'; // shared with the team dashboard's test

/** Analyses the dropped plan into `namespace` with the local Ollama model and waits for the job's end. */
export async function analyseDropped(page: Page, namespace: string): Promise<void> {
  await page.getByLabel('Namespace', { exact: true }).fill(namespace);
  await page.getByLabel('Model', { exact: true }).selectOption('ollama/llama3.1:8b');
  await page.getByRole('button', { name: 'Run analysis' }).click();
  await page.waitForURL(/\/jobs\//);
  await page.getByRole('link', { name: 'Triage the findings' }).waitFor({ timeout: 60_000 });
}
