/**
 * `npx tsx bench/desktop.ts` (issue 10): the desktop app's local engine, measured under Node
 * exactly as the Electron main process runs it (apps/desktop/src/core/boot.ts, no port, the
 * request bridge). Prints the boot time (cold: a new user-data folder; warm: the same folder
 * again) and the time from a dropped 1 MB Terraform plan to its units listed (ingest through
 * the bridge, then GET /{namespace}/resources). Never part of `npm test`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootLocalEngine } from '../apps/desktop/src/core/boot';
import { scaledPlan } from '../tests/desktop/plans';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-desktop-bench-'));
  try {
    const cold = await bootLocalEngine({ userDataDir: dir });
    await cold.close();
    const engine = await bootLocalEngine({ userDataDir: dir });
    const plan = scaledPlan(1024 * 1024);
    const started = performance.now();
    const ingested = await engine.bridge({
      method: 'POST',
      path: '/api/v1/terraform/dropped-plan/ingest',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: plan.text,
    });
    const listed = await engine.bridge({ method: 'GET', path: '/api/v1/dropped-plan/resources', headers: { accept: 'application/json' }, body: null });
    const droppedToListedMs = performance.now() - started;
    if (ingested.status !== 201 || listed.status !== 200) throw new Error(`ingest ${ingested.status}, list ${listed.status}`);
    const units = (JSON.parse(listed.body) as unknown[]).length;
    await engine.close();
    console.log(`desktop boot (cold, new user-data folder): ${cold.bootMs.toFixed(0)} ms`);
    console.log(`desktop boot (warm, existing SQLite):      ${engine.bootMs.toFixed(0)} ms`);
    console.log(
      `1 MB plan (${(Buffer.byteLength(plan.text) / 1024).toFixed(0)} KiB, ${plan.changes} resource changes) dropped → ${units} units listed: ${droppedToListedMs.toFixed(0)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
