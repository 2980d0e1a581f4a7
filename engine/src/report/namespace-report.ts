import type { EngineContext } from '../context/engine-context';
import { buildReportModelInSlices } from './model';
import { serializeSarif } from './sarif';
import { buildNamespaceSarif, SARIF_CONTENT_TYPE } from './sarif-service';
import { renderUntrusted } from './template-sandbox';
import { loadNamespaceReportInput } from './report-input';

export type ReportFormat = 'markdown' | 'markdown_light' | 'html';
/** The template formats plus `sarif` (SARIF 2.1.0, report/sarif.ts), which has no template. */
export type NamespaceReportFormat = ReportFormat | 'sarif';

export interface NamespaceReportOptions {
  readonly format: NamespaceReportFormat;
  readonly includeSuppressed: boolean;
  /** A user template's source (already looked up in the org); null = the built-in. */
  readonly templateSource?: string | null;
  /** The sandbox lane a template render queues in (report/template-sandbox-lane.ts); default the org's. */
  readonly sandboxLane?: string;
  readonly reportHtmlUrl?: string | null;
  readonly dashboardUrl?: string | null;
  readonly job?: { job_id: string; status: string; quota_exceeded: boolean } | null;
}

/**
 * Renders the report of a namespace (analysis-api.md "Reports and report links") from its
 * resources, their analyses and the org's triage statuses. Throws NotFoundError (404) when the
 * namespace has no resources in the org, ValidationError (422) when a template fails to render.
 * `sarif` ignores templates and always carries suppressed findings (as SARIF suppressions).
 * Returns `{content, contentType}`.
 */
export async function renderNamespaceReport(ctx: EngineContext, orgId: string, namespace: string, options: NamespaceReportOptions) {
  if (options.format === 'sarif') {
    const log = await buildNamespaceSarif(ctx, orgId, namespace, { job: options.job });
    return { content: serializeSarif(log), contentType: SARIF_CONTENT_TYPE };
  }
  const input = await loadNamespaceReportInput(ctx, orgId, namespace, options);
  // Built in slices: a namespace of thousands of resources would hold the event loop (buildReportModelInSlices).
  const model = await buildReportModelInSlices(input);
  // An org template is untrusted: it renders in the sandbox worker, never on the request thread.
  if (options.templateSource) return renderUntrusted(options.sandboxLane ?? `org:${orgId}`, model, options.format, options.templateSource);
  // LiquidJS and sanitize-html load on the first report, not at start-up.
  const { renderReport } = await import('./render');
  return renderReport(model, { format: options.format });
}
