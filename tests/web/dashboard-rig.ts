import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildServer, isStale } from '../../server/scripts/build.mjs';
import { DASHBOARD_DIST } from '../../server/src/http/dashboard';
import type { FakeProvider } from '../fakes/llm-provider-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { CHROMIUM, launch, newContext } from './browser';
import { registerOverHttp } from './flows';

/** Chromium is installed and the dashboard built: the browser tests can run (else they skip). */
export const BROWSER_READY = existsSync(CHROMIUM) && existsSync(join(DASHBOARD_DIST, 'index.html'));

/** The compiled server as `npm start` runs it (auth on), its first owner signed up, and a browser page. */
export interface DashboardRig {
  readonly server: ServerProcess;
  /** A scratch folder the test may write into; the server's data dir is `data/` inside it. */
  readonly workDir: string;
  /** The owner's session cookie and organization. */
  readonly owner: { cookie: string; orgId: string | null };
  readonly browser: Browser;
  /** A page of its own context, light colour scheme. */
  readonly page: Page;
  /** Closes the browser, stops the server and removes `workDir`. */
  stop(): Promise<void>;
}

/**
 * Starts a DashboardRig: builds the server bundle when stale, spawns it on 127.0.0.1 with auth
 * on (and `fake` as its model providers when given), registers `owner` with `orgName`, launches
 * Chromium. `name` names the scratch folder.
 */
export async function startDashboardRig(options: {
  name: string;
  owner: { email: string; password: string };
  orgName: string;
  fake?: FakeProvider;
}): Promise<DashboardRig> {
  const workDir = mkdtempSync(join(tmpdir(), `planwarden-${options.name}-`));
  if (isStale()) await buildServer();
  const server = await spawnServer({ dataDir: join(workDir, 'data'), fake: options.fake, entry: 'compiled', env: { PLANWARDEN_AUTH_ENABLED: 'true' } });
  const owner = await registerOverHttp(server.url, options.owner.email, options.owner.password, options.orgName);
  const browser = await launch();
  const { context } = await newContext(browser);
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: 'light' });
  return {
    server,
    workDir,
    owner,
    browser,
    page,
    stop: async () => {
      await browser.close();
      await server.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
