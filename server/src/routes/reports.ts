import { renderNamespaceReport } from '@planwarden/engine/analysis/namespace-report';
import { route, type RouteDef } from '../http/route';
import { ReportQuerySchema } from './reports.schema';
import { param, parseQuery } from './shared';

/** analysis-api.md "Reports and report links": GET /{namespace}/report. */
export function reportRoutes(): RouteDef[] {
  return [
    route({
      method: 'get', path: '/:namespace/report', policy: 'member', body: 'none',
      handler: async (ctx, req) => {
        const query = parseQuery(ReportQuerySchema, req);
        const report = await renderNamespaceReport(ctx.engine, ctx.orgId, param(req, 'namespace'), {
          format: query.format,
          includeSuppressed: query.include_suppressed,
        });
        if (query.raw) return { contentType: report.contentType, body: report.content };
        return { body: query.format === 'html' ? { html_report: report.content } : { markdown_report: report.content } };
      },
    }),
  ];
}
