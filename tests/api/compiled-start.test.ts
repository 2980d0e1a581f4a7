/**
 * Issue 18: `npm start` runs the compiled bundle (server/scripts/build.mjs → server/dist/app),
 * not TypeScript under tsx. The bundle must behave as the sources do where it differs from them:
 * resources found from the bundle (rules), the ingest worker thread started from its copied
 * entry with the compiled body, and the WAL checkpoint worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, isStale } from '../../server/scripts/build.mjs';
import { corpusFile } from '../corpus';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

let dataDir: string;
let server: ServerProcess;

beforeAll(async () => {
  if (isStale()) await buildServer();
  dataDir = mkdtempSync(join(tmpdir(), 'planwarden-compiled-'));
  server = await spawnServer({ dataDir, entry: 'compiled' });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the compiled server (npm start)', () => {
  it('answers /health and serves the built-in rulesets from resources/', async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const rules = await server.api('/terraform/rules');
    expect(rules.status).toBe(200);
    const markdown = await rules.text();
    expect(markdown).toMatch(/^# Terraform/);
    expect(markdown.length).toBeGreaterThan(1000);
  });

  it('splits a large plan in the ingest worker thread and streams the reply', async () => {
    // Over 64 KiB of text: split in the worker pool (worker-pool.ts WORKER_MIN_CHARS), whose
    // thread loads the compiled body named at build time.
    const raw = corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json');
    expect(raw.length).toBeGreaterThan(64 * 1024);
    const res = await server.api('/terraform/compiled/ingest', { method: 'POST', body: new Uint8Array(raw), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    const text = await res.text();
    const units = JSON.parse(text) as { hash: string }[];
    expect(units.length).toBeGreaterThan(10);
    expect(text).toBe(JSON.stringify(units));
    const stored = await server.api(`/resource/${units[0].hash}`);
    expect(stored.status).toBe(200);
  });
});
