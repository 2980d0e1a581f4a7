/**
 * Issue 18: `npm start` is one Node process, server/scripts/start.mjs. It checks the dashboard
 * build itself (apps/web/scripts/ensure-build.mjs, formerly a `prestart` process of its own),
 * then the server bundle, then serves both.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardIsStale, ensureDashboardBuild, WEB_DIR } from '../../apps/web/scripts/ensure-build.mjs';
import { spawnServer } from '../helpers/server-process';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A dashboard folder: src/main.tsx written at `sourceAt`, dist/index.html at `builtAt` (null: none), in seconds. */
function webFolder(sourceAt: number, builtAt: number | null): string {
  const web = mkdtempSync(join(tmpdir(), 'planwarden-web-'));
  dirs.push(web);
  mkdirSync(join(web, 'src'));
  writeFileSync(join(web, 'src', 'main.tsx'), 'export {};\n');
  utimesSync(join(web, 'src', 'main.tsx'), sourceAt, sourceAt);
  if (builtAt !== null) {
    mkdirSync(join(web, 'dist'));
    writeFileSync(join(web, 'dist', 'index.html'), '<!doctype html>\n');
    utimesSync(join(web, 'dist', 'index.html'), builtAt, builtAt);
  }
  return web;
}

describe('the dashboard build check of npm start', () => {
  it('builds when dist is missing or older than a source, and not when it is current', () => {
    const calls: string[] = [];
    const build = (web: string) => {
      calls.push(web);
      return 0;
    };
    const missing = webFolder(1_000, null);
    const older = webFolder(2_000, 1_000);
    const current = webFolder(1_000, 2_000);
    expect([dashboardIsStale(missing), dashboardIsStale(older), dashboardIsStale(current)]).toEqual([true, true, false]);
    expect(ensureDashboardBuild({ web: missing, build })).toBe(0);
    expect(ensureDashboardBuild({ web: older, build })).toBe(0);
    expect(ensureDashboardBuild({ web: current, build })).toBe(0);
    expect(calls).toEqual([missing, older]);
  });

  it('reports a failed build with its exit status', () => {
    expect(ensureDashboardBuild({ web: webFolder(2_000, 1_000), build: () => 3 })).toBe(3);
  });
});

describe("npm start's entry (server/scripts/start.mjs)", () => {
  it('starts the compiled server, which serves the current dashboard at / and answers /health', async () => {
    // npm test builds the dashboard before vitest runs, so the check finds it current.
    expect(dashboardIsStale()).toBe(false);
    const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-start-'));
    dirs.push(dataDir);
    const server = await spawnServer({ dataDir, entry: 'start' });
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      const page = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(readFileSync(join(WEB_DIR, 'dist', 'index.html'), 'utf8'));
      expect(server.stdout()).not.toContain('Building the dashboard');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
