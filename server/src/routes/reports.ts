import type { Request } from 'express';
import { renderOrgReport } from '@planwarden/engine/report/report-link-service';
import { SARIF_INDENT } from '@planwarden/engine/report/sarif';
import { buildNamespaceSarif, SARIF_CONTENT_TYPE } from '@planwarden/engine/report/sarif-service';
import { namespaceFindingsUrl } from '@planwarden/engine/core/finding-links';
import { API_BASE } from '../http/route';
import { identityCtx } from '../auth/identity';
import { route, type BodyWriter, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ReportQuerySchema } from './reports.schema';
import { param, parseQuery } from './shared';
import { yieldWhenDue } from '@planwarden/engine/ingest/timed-batches';
import { STREAMED_ARRAY, writeJsonAround, writeTextInChunks } from './json-slices';

/**
 * The prefix a public report token is appended to: `{server.public_base_url}/api/v1/reports/`;
 * without a configured public base URL, the origin the caller reached us on (the link is only
 * shown to that caller).
 */
export function reportLinkBase(services: ServerServices, req: Request): string {
  const origin = services.config.server.public_base_url ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  return `${origin.replace(/\/+$/, '')}${API_BASE}/reports/`;
}

/**
 * A reply's writer that first takes a turn of the event loop when the work since the last one is
 * due it (yieldWhenDue): the end of a sliced render and the first chunk written are not one stall.
 */
function afterDueTurn(write: (out: BodyWriter) => Promise<void>): (out: BodyWriter) => Promise<void> {
  return async (out) => {
    await yieldWhenDue();
    await write(out);
  };
}

/** analysis-api.md "Reports and report links": GET /{namespace}/report. */
export function reportRoutes(services: ServerServices): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/:namespace/report',
      policy: 'member',
      body: 'none',
      query: ReportQuerySchema,
      handler: async (ctx, req) => {
        const query = parseQuery(ReportQuerySchema, req);
        // SARIF has no templates: a template_id still overrides the format, as for the others.
        if (query.format === 'sarif' && !query.template_id) {
          const namespace = param(req, 'namespace');
          const dashboardUrl = namespaceFindingsUrl(services.config.server.dashboard_base_url ?? services.config.server.public_base_url, namespace);
          const log = await buildNamespaceSarif(ctx.engine, ctx.orgId, namespace, { dashboardUrl });
          // The bytes of serializeSarif(log) (raw) or of the JSON reply {sarif_report: log}, streamed
          // result by result: serialising megabytes in one go would hold the event loop.
          const [run, ...rest] = log.runs;
          const skeleton = { ...log, runs: [{ ...run, results: STREAMED_ARRAY }, ...rest] };
          const results = run.results ?? [];
          if (query.raw) {
            // As res.send labels a string reply; SARIF_CONTENT_TYPE alone would reach the client without a charset.
            return {
              contentType: `${SARIF_CONTENT_TYPE}; charset=utf-8`,
              stream: afterDueTurn((out) => writeJsonAround(skeleton, STREAMED_ARRAY, results, out, SARIF_INDENT, '\n')),
            };
          }
          return { stream: afterDueTurn((out) => writeJsonAround({ sarif_report: skeleton }, STREAMED_ARRAY, results, out)) };
        }
        const report = await renderOrgReport(ctx.engine, ctx.orgId, param(req, 'namespace'), {
          format: query.format === 'sarif' ? 'markdown' : query.format,
          templateId: query.template_id ?? null,
          includeSuppressed: query.include_suppressed,
          linkBase: reportLinkBase(services, req),
          dashboardBaseUrl: services.config.server.dashboard_base_url,
          createdBy: ctx.principal.email ?? ctx.principal.userId ?? ctx.principal.keyId ?? null,
          actor: identityCtx(ctx).actor,
        });
        // The bytes of the raw document or of the JSON reply {html_report | markdown_report: content},
        // sent in chunks (writeTextInChunks): a large namespace's report is megabytes.
        if (query.raw) return { contentType: report.contentType, stream: afterDueTurn((out) => writeTextInChunks(report.content, out)) };
        const key = report.format === 'html' ? 'html_report' : 'markdown_report';
        return { stream: afterDueTurn((out) => writeTextInChunks(report.content, out, { json: true, prefix: `{${JSON.stringify(key)}:`, suffix: '}' })) };
      },
    }),
  ];
}
