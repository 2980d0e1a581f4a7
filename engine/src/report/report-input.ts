import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import type { FindingDoc } from '../findings/finding-store';
import type { ReportInput } from './model';
import { assertNamespace } from '../analysis/ingest-service';
import { lacksModelReview, type ResourceDoc } from '../ingest/resource-store';
import { flatMapInTimedSlices, readInTimedBatches } from '../ingest/timed-reads';

export interface ReportInputOptions {
  readonly includeSuppressed: boolean;
  readonly reportHtmlUrl?: string | null;
  readonly dashboardUrl?: string | null;
  /** The job the report is for; undefined = the namespace's latest run when it stopped at the monthly cap. */
  readonly job?: { job_id: string; status: string; quota_exceeded: boolean } | null;
}

export interface NamespaceReportData {
  /** What `buildReportModel` takes. */
  readonly input: ReportInput;
  /** The namespace's stored resources by hash (unit metadata: file paths, lines, addresses). */
  readonly resources: ReadonlyMap<string, ResourceDoc>;
  /** Triage records by `${resource_hash}\u0000${rule_id}` (status, note). */
  readonly triage: ReadonlyMap<string, FindingDoc>;
}

/** The key of a triage record in `NamespaceReportData.triage`. */
export function triageKey(resourceHash: string, ruleId: string): string {
  return `${resourceHash}\u0000${ruleId}`;
}

/**
 * Reads what every report of a namespace is built from (analysis-api.md "Reports and report
 * links"): its resources in ingest order, their analyses and the org's triage statuses.
 * Throws ValidationError (422) for a malformed namespace and NotFoundError (404) when the
 * namespace does not exist in the org.
 */
export async function loadNamespaceReportData(ctx: EngineContext, orgId: string, namespace: string, options: ReportInputOptions): Promise<NamespaceReportData> {
  assertNamespace(namespace);
  // The namespace's current state is its latest run (docs/decisions.md "Runs compared"): units an earlier run saw and it did not are left out.
  const members = await ctx.stores.resources.currentMembers(orgId, namespace);
  if (members.length === 0 && !(await ctx.stores.resources.namespaceExists(orgId, namespace))) {
    throw new NotFoundError(`Namespace '${namespace}' not found`);
  }
  const hashes = members.map((m) => m.hash);
  // Without a job of its own, the report says when the namespace's latest run stopped at the monthly cap.
  const job = options.job !== undefined ? options.job : await latestCappedJob(ctx, orgId, namespace);
  // Read in batches with event-loop turns between (readInTimedBatches): a namespace's resources are megabytes to decode.
  const resources = await readInTimedBatches(hashes, (batch) => ctx.stores.resources.getMany(orgId, batch));
  const triage = await readInTimedBatches(hashes, (batch) => ctx.stores.findings.forResources(orgId, batch));
  const triageByKey = new Map(triage.map((t) => [triageKey(t.resource_hash, t.rule_id), t]));
  const byHash = new Map(resources.map((r) => [r.hash, r]));
  // Built in slices (flatMapInTimedSlices): thousands of resources and their findings.
  const reportResources = await flatMapInTimedSlices(members, (m) => {
    const r = byHash.get(m.hash);
    if (!r) return [];
    return [
      {
        hash: r.hash,
        type: r.value.type,
        name: r.value.name,
        action: r.value.action,
        analyzer: r.analyzer,
        summary: r.analysis?.summary ?? null,
        findings: (r.analysis?.findings ?? []).map((f) => ({
          ...f,
          status: triageByKey.get(triageKey(r.hash, f.rule_id))?.status ?? 'open',
        })),
        lacks_model_review: lacksModelReview(r),
      },
    ];
  });
  const input: ReportInput = {
    namespace,
    generatedAt: ctx.now().toISOString(),
    includeSuppressed: options.includeSuppressed,
    report_html_url: options.reportHtmlUrl ?? null,
    dashboard_url: options.dashboardUrl ?? null,
    quota_exceeded: job?.quota_exceeded ?? false,
    job: job ? { job_id: job.job_id, status: job.status } : null,
    resources: reportResources,
  };
  return { input, resources: byHash, triage: triageByKey };
}

async function latestCappedJob(ctx: EngineContext, orgId: string, namespace: string) {
  const latest = await ctx.stores.jobs.latestForNamespace(orgId, namespace);
  return latest && latest.status === 'done' && latest.quota_exceeded ? { job_id: latest.job_id, status: latest.status, quota_exceeded: true } : null;
}
