import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import type { FindingDoc } from '../findings/finding-store';
import { reportInputResource, type ReportInput, type ReportInputResource } from './model';
import { assertNamespace } from '../analysis/ingest-service';
import { lacksModelReview, type ResourceDoc } from '../ingest/resource-store';
import { forEachTimedBatch } from '../ingest/timed-batches';

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
  const byHash = new Map<string, ResourceDoc>();
  const triageByKey = new Map<string, FindingDoc>();
  const input = await readReportInput(ctx, orgId, namespace, options, (docs, triage) => {
    for (const r of docs) byHash.set(r.hash, r);
    for (const t of triage) triageByKey.set(triageKey(t.resource_hash, t.rule_id), t);
  });
  return { input, resources: byHash, triage: triageByKey };
}

/**
 * loadNamespaceReportData's `input` alone (the Markdown and HTML reports): each batch's documents
 * are garbage as soon as the batch is mapped, so a large namespace's megabytes of decoded
 * documents never live through the whole read (collecting them is what holds the event loop).
 * Same errors.
 */
export function loadNamespaceReportInput(ctx: EngineContext, orgId: string, namespace: string, options: ReportInputOptions): Promise<ReportInput> {
  return readReportInput(ctx, orgId, namespace, options);
}

/**
 * The report input, read and mapped a batch of members at a time (forEachTimedBatch: about 8 ms
 * per batch, a turn of the event loop between batches): each batch's resource documents and
 * triage records are read, handed to `keep`, and mapped to the input's resources.
 */
async function readReportInput(
  ctx: EngineContext,
  orgId: string,
  namespace: string,
  options: ReportInputOptions,
  keep?: (docs: readonly ResourceDoc[], triage: readonly FindingDoc[]) => void,
): Promise<ReportInput> {
  assertNamespace(namespace);
  // The namespace's current state is its latest run (docs/decisions.md "Runs compared"): units an earlier run saw and it did not are left out.
  const members = await ctx.stores.resources.currentMembers(orgId, namespace);
  if (members.length === 0 && !(await ctx.stores.resources.namespaceExists(orgId, namespace))) {
    throw new NotFoundError(`Namespace '${namespace}' not found`);
  }
  // Without a job of its own, the report says when the namespace's latest run stopped at the monthly cap.
  const job = options.job !== undefined ? options.job : await latestCappedJob(ctx, orgId, namespace);
  const resources: ReportInputResource[] = [];
  // The first batch is small: a namespace's documents can be large.
  await forEachTimedBatch(
    members,
    async (batch) => {
      const hashes = batch.map((m) => m.hash);
      const docs = await ctx.stores.resources.getMany(orgId, hashes);
      const triage = await ctx.stores.findings.forResources(orgId, hashes);
      keep?.(docs, triage);
      const byHash = new Map(docs.map((r) => [r.hash, r]));
      const statuses = new Map(triage.map((t) => [triageKey(t.resource_hash, t.rule_id), t.status]));
      for (const m of batch) {
        const r = byHash.get(m.hash);
        if (r) resources.push(reportResource(r, statuses));
      }
    },
    { first: 50, min: 10 },
  );
  return {
    namespace,
    generatedAt: ctx.now().toISOString(),
    includeSuppressed: options.includeSuppressed,
    report_html_url: options.reportHtmlUrl ?? null,
    dashboard_url: options.dashboardUrl ?? null,
    quota_exceeded: job?.quota_exceeded ?? false,
    job: job ? { job_id: job.job_id, status: job.status } : null,
    resources,
  };
}

/** A stored resource as the report input's resource, each finding with its triage status (`statuses` by triageKey; open without a record). */
function reportResource(r: ResourceDoc, statuses: ReadonlyMap<string, FindingDoc['status']>): ReportInputResource {
  return reportInputResource(r, (ruleId) => statuses.get(triageKey(r.hash, ruleId)) ?? 'open', lacksModelReview(r));
}

async function latestCappedJob(ctx: EngineContext, orgId: string, namespace: string) {
  const latest = await ctx.stores.jobs.latestForNamespace(orgId, namespace);
  return latest && latest.status === 'done' && latest.quota_exceeded ? { job_id: latest.job_id, status: latest.status, quota_exceeded: true } : null;
}
