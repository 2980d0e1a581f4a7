import type { EngineContext } from '../context/engine-context';
import type { RunComparison } from './job-store';

/**
 * "+N new · −M no longer detected · K unchanged" of one run of a namespace against the run before
 * it (docs/decisions.md "Runs compared"), counted in triage records (every status):
 * - new: a record of a unit this run saw that the previous run did not, or one first seen in this
 *   run (a rule that now matches an unchanged unit);
 * - no longer detected: a record of a unit the previous run saw and this run did not;
 * - unchanged: a record of a unit both runs saw, first seen before this run.
 * The first run of a namespace counts everything as new. Returns null when the run is unknown
 * (never recorded, or pruned beyond RUNS_KEPT).
 */
export async function compareRun(ctx: EngineContext, orgId: string, namespace: string, runId: string): Promise<RunComparison | null> {
  const { resources, findings } = ctx.stores;
  const run = await resources.getRun(orgId, namespace, runId);
  if (!run) return null;
  const previous = run.prev_run_id ? await resources.getRun(orgId, namespace, run.prev_run_id) : null;
  const seen = new Set(run.hashes);
  const before = new Set(previous?.hashes ?? []);
  const hashes = [...new Set([...seen, ...before])];
  const records = hashes.length === 0 ? [] : await findings.forResources(orgId, hashes);
  const counts: RunComparison = { new: 0, no_longer_detected: 0, unchanged: 0 };
  for (const record of records) {
    if (!seen.has(record.resource_hash)) counts.no_longer_detected += 1;
    else if (!before.has(record.resource_hash) || record.first_seen >= run.created_at) counts.new += 1;
    else counts.unchanged += 1;
  }
  return counts;
}
