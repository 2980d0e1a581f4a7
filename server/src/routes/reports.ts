import { z } from 'zod';
import { renderNamespaceReport } from '@planwarden/engine/analysis/namespace-report';
import { route, type RouteDef } from '../http/route';
import { booleanQuery, param, parseQuery } from './shared';

const ReportQuery = z.object({
  analyzer: z.string().optional(), // deprecated; the analyzers are detected from the resources
  format: z.enum(['markdown', 'markdown_light', 'html']).default('markdown'),
  template_id: z.string().min(1).optional(),
  raw: booleanQuery.default(false),
  include_suppressed: booleanQuery.default(false),
});

/** analysis-api.md "Reports and report links": GET /{namespace}/report. */
export function reportRoutes(): RouteDef[] {
  return [
    route({
      method: 'get', path: '/:namespace/report', policy: 'member', body: 'none',
      handler: async (ctx, req) => {
        const query = parseQuery(ReportQuery, req);
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
