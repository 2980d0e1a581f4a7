/**
 * Diagnostic for item 1's RSS figure (not a pass/fail figure): what a ~10 MB plan ingest holds
 * in memory, stage by stage, in process on sqlite (run with `node --expose-gc --import tsx`).
 * Each line is the live heap + external memory after a full GC with the previous stages' values
 * still referenced, i.e. what the server holds at that point of the request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeText } from '../engine/src/core/decode';
import { extractPlanJson, planJsonUnits } from '../engine/src/analyzers/terraform/plan-json';
import { RESOURCE_INDEXES, ResourceStore } from '../engine/src/ingest/resource-store';
import { openStore } from '../engine/src/store/open-store';
import { planOfSize } from './lib';

const MB = 1024 * 1024;

function live(): { heap: number; external: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed / MB, external: m.external / MB, rss: m.rss / MB };
}

export async function ingestMemory(bytes = 10 * MB - 64 * 1024, log: (line: string) => void = console.log): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) log('  (no --expose-gc: figures include garbage)');
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-bench-mem-'));
  const store = await openStore({ backend: 'sqlite', dataDir: dir });
  try {
    for (const [name, specs] of Object.entries(RESOURCE_INDEXES)) await store.ensureIndexes(name, specs);
    const resources = new ResourceStore(store);
    const base = live();
    const row = (stage: string, note = ''): void => {
      const m = live();
      log(
        `  ${stage.padEnd(34)} heap +${(m.heap - base.heap).toFixed(1).padStart(6)} MB  external +${(m.external - base.external).toFixed(1).padStart(5)} MB  rss ${m.rss.toFixed(0)} MB ${note}`,
      );
    };
    let body: Buffer | null = Buffer.from(planOfSize(bytes, 'mem').text);
    row('request body (Buffer)', `${(body.length / MB).toFixed(1)} MB`);
    let text: string | null = decodeText(body);
    row('+ decoded text');
    let plan: Record<string, unknown> | null = extractPlanJson(text);
    row('+ parsed plan');
    const units = planJsonUnits(plan, 'terraform').map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: 'terraform' } }));
    const bodyChars = units.reduce((n, u) => n + u.body.length, 0);
    row('+ units', `${units.length} units, bodies ${(bodyChars / MB).toFixed(1)} M chars`);
    plan = null;
    row('  units, plan dropped');
    text = null;
    body = null;
    row('  units only (body/text dropped)');
    await resources.addUnits('org-mem', 'ns-mem', units, new Date().toISOString());
    row('  after addUnits');
    const reply = JSON.stringify(units);
    row('+ reply JSON string', `${(reply.length / MB).toFixed(1)} M chars`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ingestMemory().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
