/**
 * Diagnostic for item 1 (not a pass/fail figure): where a 5 MB ingest spends its time, in
 * process, on the sqlite adapter in a temp dir. Splits analyzer.ingest (extract + render + hash)
 * from ResourceStore.addUnits and times the three store calls addUnits makes per unit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnalyzerRegistry } from '../engine/src/analyzers/registry';
import { extractPlanJson, planJsonUnits } from '../engine/src/analyzers/terraform/plan-json';
import { RESOURCE_INDEXES, ResourceStore } from '../engine/src/ingest/resource-store';
import { openStore } from '../engine/src/store/open-store';
import { legacyPlanJsonUnits } from '../tests/reference/legacy-plan-json';
import { median, planOfSize, timed } from './lib';

export interface IngestBreakdown {
  readonly mb: number;
  readonly units: number;
  readonly jsonParseMs: number;
  readonly extractMs: number;
  readonly unitsMs: number;
  /** Same plan through the frozen pre-optimisation pipeline (testing/legacy-plan-json.ts), same run. */
  readonly legacyUnitsMs: number;
  readonly analyzerIngestMs: number;
  readonly addUnitsMs: number;
  readonly perUnit: { upsertResourceMs: number; findOneMs: number; upsertMemberMs: number };
}

export async function ingestBreakdown(bytes = 5 * 1024 * 1024): Promise<IngestBreakdown> {
  const { text, units } = planOfSize(bytes, 'breakdown');
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-bench-bd-'));
  const store = await openStore({ backend: 'sqlite', dataDir: dir });
  try {
    for (const [name, specs] of Object.entries(RESOURCE_INDEXES)) await store.ensureIndexes(name, specs);
    const analyzer = createAnalyzerRegistry().get('terraform')!;
    const jsonParseMs = (await timed(() => JSON.parse(text) as unknown)).ms;
    const extract = await timed(() => extractPlanJson(text));
    planJsonUnits(extract.value, 'terraform'); // warm-up
    // Interleaved repeats (shared 2-core machine): median of 5 each, new vs frozen legacy code.
    const nowMs: number[] = [];
    const legacyMs: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      nowMs.push((await timed(() => planJsonUnits(extract.value, 'terraform'))).ms);
      legacyMs.push((await timed(() => legacyPlanJsonUnits(extract.value, 'terraform'))).ms);
    }
    const viaAnalyzer = await timed(() => analyzer.ingest!(text));
    const withMeta = viaAnalyzer.value.map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: 'terraform' } }));
    const resources = new ResourceStore(store);
    const add = await timed(() => resources.addUnits('org-bench', 'ns-a', withMeta, new Date().toISOString()));

    // The three calls addUnits makes per unit, timed separately on fresh hashes.
    const coll = store.collection('resources');
    const members = store.collection('namespace_resources');
    const sample = withMeta.slice(0, 500);
    const now = new Date().toISOString();
    const t1 = await timed(async () => {
      for (const u of sample) {
        await coll.updateOne(
          { org_id: 'org-b2', hash: u.hash },
          {
            $setOnInsert: {
              analyzer: 'terraform',
              value: { type: u.type, name: u.name, action: u.action, body: u.body },
              metadata: u.metadata,
              analysis: null,
              created_at: now,
            },
          },
          { upsert: true },
        );
      }
    });
    const t2 = await timed(async () => {
      for (const u of sample) await coll.findOne({ org_id: 'org-b2', hash: u.hash });
    });
    const t3 = await timed(async () => {
      for (const [i, u] of sample.entries()) {
        await members.updateOne(
          { org_id: 'org-b2', namespace: 'ns', hash: u.hash },
          { $setOnInsert: { analyzer: 'terraform', position: `${now}#${i}`, created_at: now }, $set: { analyzed: false } },
          { upsert: true },
        );
      }
    });
    return {
      mb: Buffer.byteLength(text) / (1024 * 1024),
      units,
      jsonParseMs,
      extractMs: extract.ms,
      unitsMs: median(nowMs),
      legacyUnitsMs: median(legacyMs),
      analyzerIngestMs: viaAnalyzer.ms,
      addUnitsMs: add.ms,
      perUnit: { upsertResourceMs: t1.ms / sample.length, findOneMs: t2.ms / sample.length, upsertMemberMs: t3.ms / sample.length },
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ingestBreakdown().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
