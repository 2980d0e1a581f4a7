/**
 * Runs compared (docs/decisions.md "Runs compared"): a namespace's current state is its latest
 * run, so a finding whose unit that run did not see is "no longer detected", and one whose unit
 * came back after a run without it is "reappeared". Both are views over the namespace's members
 * and its last two runs, never a status: analysis-api.md "Finding status" keeps its five values.
 * resolve-no-longer-detected.ts resolves the no-longer-detected findings as fixed in one action.
 */
import type { EngineContext } from '../context/engine-context';
import { ValidationError } from '../core/errors';

/** GET /findings `detection` values (our addition). */
export const DETECTIONS = ['current', 'no_longer_detected', 'reappeared'] as const;
export type Detection = (typeof DETECTIONS)[number];

/**
 * The resource hashes of `namespace` in one detection state:
 * - current: the members its latest run saw (every member when no run was recorded: a namespace
 *   ingested before runs existed);
 * - no_longer_detected: the members its latest run did not see;
 * - reappeared: members its latest run saw, the run before it did not, that were in the
 *   namespace before the latest run (none without two runs).
 * An unknown namespace has none. Cost: the namespace's last two run records, plus its members for
 * no_longer_detected (as the plain namespace filter reads them), or the returning ones for reappeared.
 */
export async function detectionHashes(ctx: EngineContext, orgId: string, namespace: string, detection: Detection): Promise<string[]> {
  const { resources } = ctx.stores;
  const { latest, previous } = await resources.latestRuns(orgId, namespace);
  if (!latest) return detection === 'current' ? (await resources.listMembers(orgId, namespace)).map((m) => m.hash) : [];
  // A run's units are members by construction (recorded before the run): no member read needed.
  if (detection === 'current') return latest.hashes;
  const seen = new Set(latest.hashes);
  if (detection === 'no_longer_detected') return (await resources.listMembers(orgId, namespace)).flatMap((m) => (seen.has(m.hash) ? [] : [m.hash]));
  if (!previous) return [];
  const before = new Set(previous.hashes);
  const back = await resources.membersAmong(
    orgId,
    namespace,
    latest.hashes.filter((h) => !before.has(h)),
  );
  return back.filter((m) => m.created_at < latest.created_at).map((m) => m.hash);
}

/**
 * The one namespace a `detection` filter applies to: "no longer detected" relates a unit to one
 * namespace's runs (a resource may be in several). Throws ValidationError (422) otherwise.
 */
export function detectionNamespace(namespace: string | readonly string[] | undefined): string {
  const names = namespace === undefined ? [] : typeof namespace === 'string' ? [namespace] : namespace;
  if (names.length !== 1) throw new ValidationError('detection: give exactly one namespace with it');
  return names[0];
}
