import type { EngineContext } from '../context';
import { NotFoundError } from '../errors';
import { buildReportModel } from '../report/model';
import { renderReport } from '../report/render';
import { renderUntrusted } from '../report/template-sandbox';
import { assertNamespace } from './ingest-service';

export type ReportFormat = 'markdown' | 'markdown_light' | 'html';

export interface NamespaceReportOptions {
  readonly format: ReportFormat;
  readonly includeSuppressed: boolean;
  /** A user template's source (already looked up in the org); null = the built-in. */
  readonly templateSource?: string | null;
  readonly reportHtmlUrl?: string | null;
  readonly dashboardUrl?: string | null;
  readonly job?: { job_id: string; status: string; quota_exceeded: boolean } | null;
}

/**
 * Renders the report of a namespace (analysis-api.md "Reports and report links") from its
 * resources, their analyses and the org's triage statuses. Throws NotFoundError (404) when the
 * namespace has no resources in the org, ValidationError (422) when a template fails to render.
 * Returns `{content, contentType}`.
 */
export async function renderNamespaceReport(ctx: EngineContext, orgId: string, namespace: string, options: NamespaceReportOptions) {
  assertNamespace(namespace);
  const members = await ctx.stores.resources.listMembers(orgId, namespace);
  if (members.length === 0 && !(await ctx.stores.resources.namespaceExists(orgId, namespace))) {
    throw new NotFoundError(`Namespace '${namespace}' not found`);
  }
  const hashes = members.map((m) => m.hash);
  // Without a job of its own, the report says when the namespace's latest run stopped at the monthly cap.
  const job = options.job !== undefined ? options.job : await latestCappedJob(ctx, orgId, namespace);
  const [resources, triage] = await Promise.all([
    ctx.stores.resources.getMany(orgId, hashes),
    ctx.stores.findings.forResources(orgId, hashes),
  ]);
  const statusOf = new Map(triage.map((t) => [`${t.resource_hash}\u0000${t.rule_id}`, t.status]));
  const byHash = new Map(resources.map((r) => [r.hash, r]));
  const model = buildReportModel({
    namespace,
    generatedAt: ctx.now().toISOString(),
    includeSuppressed: options.includeSuppressed,
    report_html_url: options.reportHtmlUrl ?? null,
    dashboard_url: options.dashboardUrl ?? null,
    quota_exceeded: job?.quota_exceeded ?? false,
    job: job ? { job_id: job.job_id, status: job.status } : null,
    resources: members.flatMap((m) => {
      const r = byHash.get(m.hash);
      if (!r) return [];
      return [{
        hash: r.hash,
        type: r.value.type,
        name: r.value.name,
        action: r.value.action,
        analyzer: r.analyzer,
        summary: r.analysis?.summary ?? null,
        findings: (r.analysis?.findings ?? []).map((f) => ({
          ...f,
          status: statusOf.get(`${r.hash}\u0000${f.rule_id}`) ?? 'open',
        })),
      }];
    }),
  });
  // An org template is untrusted: it renders in the sandbox worker, never on the request thread.
  if (options.templateSource) return renderUntrusted(model, options.format, options.templateSource);
  return renderReport(model, { format: options.format });
}

async function latestCappedJob(ctx: EngineContext, orgId: string, namespace: string) {
  const latest = await ctx.stores.jobs.latestForNamespace(orgId, namespace);
  return latest && latest.status === 'done' && latest.quota_exceeded
    ? { job_id: latest.job_id, status: latest.status, quota_exceeded: true }
    : null;
}
