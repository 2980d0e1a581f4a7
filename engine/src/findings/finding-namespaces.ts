/**
 * Findings seen by namespace (docs/decisions.md "Findings by namespace"): the namespaces of each
 * listed finding (GET /findings?include_namespaces=true) and the namespaces ranked by open
 * CRITICAL and HIGH findings (GET /findings/namespaces, the Overview's riskiest namespaces).
 * Both are additions to analysis-api.md "Findings and review feedback"; a finding record is keyed
 * by resource, and a resource may sit in several namespaces, so a finding has a list of them.
 */
import type { EngineContext } from '../context/engine-context';
import { nextTurn } from '../ingest/timed-batches';
import { readInTimedBatches } from '../ingest/timed-reads';
import { listFindings, type FindingsFilter } from './finding-service';

/**
 * GET /findings with `include_namespaces=true`: listFindings' page, each record followed by
 * `namespaces` (sorted names of the namespaces holding its resource; one indexed read per page).
 */
export async function listFindingsWithNamespaces(ctx: EngineContext, orgId: string, filter: FindingsFilter, page: { limit: number; offset: number }) {
  const { findings } = await listFindings(ctx, orgId, filter, page);
  const byHash = await ctx.stores.resources.namespacesOfMany(orgId, [...new Set(findings.map((f) => f.resource_hash))]);
  return { findings: findings.map((f) => ({ ...f, namespaces: [...(byHash.get(f.resource_hash) ?? [])].sort() })) };
}

/** Open records read per severity at most: the ranking covers this many, and says so when cut. */
export const RISK_SCAN_LIMIT = 5_000;

/** One row of the ranking. */
export interface NamespaceRisk {
  namespace: string;
  open_critical: number;
  open_high: number;
}

/** Resource hashes of the org's open records of `severity`, newest first, at most RISK_SCAN_LIMIT. */
async function openHashes(ctx: EngineContext, orgId: string, severity: 'CRITICAL' | 'HIGH'): Promise<string[]> {
  const records = await ctx.stores.findings.list(orgId, { status: 'open', severity }, { limit: RISK_SCAN_LIMIT, offset: 0 });
  return records.map((f) => f.resource_hash);
}

/**
 * GET /findings/namespaces: the org's namespaces with at least one open CRITICAL or HIGH finding,
 * most open CRITICAL first, then most open HIGH, then by name; at most `limit`. Reads the open
 * CRITICAL and HIGH records (index org_status_last_seen; at most RISK_SCAN_LIMIT each, `partial`
 * true when cut) and their resources' memberships, never the org's other records. A turn of the
 * event loop comes between the two reads and the membership batches (readInTimedBatches), so
 * they do not hold the server in one stall. Records are not read in offset pages: each
 * page would scan every record before its offset (severity is not in the status index), costing
 * more in all and as much in its last page.
 * Returns `{namespaces: NamespaceRisk[], partial}`.
 */
export async function riskiestNamespaces(ctx: EngineContext, orgId: string, limit: number) {
  const critical = await openHashes(ctx, orgId, 'CRITICAL');
  await nextTurn();
  const high = await openHashes(ctx, orgId, 'HIGH');
  await nextTurn();
  const byHash = new Map(
    await readInTimedBatches([...new Set([...critical, ...high])], async (batch) => [...(await ctx.stores.resources.namespacesOfMany(orgId, batch))]),
  );
  const tally = new Map<string, NamespaceRisk>();
  const add = (hash: string, field: 'open_critical' | 'open_high') => {
    for (const namespace of byHash.get(hash) ?? []) {
      const row = tally.get(namespace) ?? { namespace, open_critical: 0, open_high: 0 };
      row[field] += 1;
      tally.set(namespace, row);
    }
  };
  for (const hash of critical) add(hash, 'open_critical');
  for (const hash of high) add(hash, 'open_high');
  const ranked = [...tally.values()].sort(
    (a, b) => b.open_critical - a.open_critical || b.open_high - a.open_high || (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0),
  );
  return { namespaces: ranked.slice(0, limit), partial: critical.length === RISK_SCAN_LIMIT || high.length === RISK_SCAN_LIMIT };
}
