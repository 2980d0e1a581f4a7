/**
 * Findings seen by namespace (docs/decisions.md "Findings by namespace"): the namespaces of each
 * listed finding (GET /findings?include_namespaces=true) and the namespaces ranked by open
 * CRITICAL and HIGH findings (GET /findings/namespaces, the Overview's riskiest namespaces).
 * Both are additions to analysis-api.md "Findings and review feedback"; a finding record is keyed
 * by resource, and a resource may sit in several namespaces, so a finding has a list of them.
 */
import type { EngineContext } from '../context/engine-context';
import { nextTurn } from '../ingest/timed-batches';
import { readInTimedBatches, readPagesInTimedBatches } from '../ingest/timed-reads';
import { listFindings, type FindingsFilter } from './finding-service';
import type { FindingDoc } from './finding-store';

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

/**
 * Resource hashes of the org's open records of `severity`, newest first, at most RISK_SCAN_LIMIT:
 * read in pages of about 8 ms each (readPagesInTimedBatches) by offset over the index
 * org_status_severity_last_seen, which answers the whole filter, so a page's offset costs index
 * steps only. A record that moves while the pages are read (seen again, triaged) may be counted
 * in the position it had or the one it has, as in any paged read.
 */
async function openHashes(ctx: EngineContext, orgId: string, severity: 'CRITICAL' | 'HIGH'): Promise<string[]> {
  const filter = { status: 'open', severity } as const;
  const records = await readPagesInTimedBatches<FindingDoc>(RISK_SCAN_LIMIT, (_after, limit, offset) =>
    ctx.stores.findings.list(orgId, filter, { limit, offset }),
  );
  return records.map((f) => f.resource_hash);
}

/**
 * GET /findings/namespaces: the org's namespaces with at least one open CRITICAL or HIGH finding,
 * most open CRITICAL first, then most open HIGH, then by name; at most `limit`. Reads the open
 * CRITICAL and HIGH records (openHashes: timed pages over index org_status_severity_last_seen; at
 * most RISK_SCAN_LIMIT each, `partial` true when cut) and their resources' memberships (timed
 * batches, readInTimedBatches), never the org's other records, with a turn of the event loop
 * between reads, so no read holds the server for more than a page's few milliseconds.
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
