import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  previewTemplate,
  seedBuiltinTemplates,
  updateTemplate,
} from '@planwarden/engine/report/template-service';
import { openReportLink, setReportLinkTtl } from '@planwarden/engine/report/report-link-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import {
  CreateTemplateSchema,
  PreviewTemplateSchema,
  ReportLinkTtlSchema,
  SharedLinkQuerySchema,
  TemplatesQuerySchema,
  UpdateTemplateSchema,
} from './report-templates.schema';
import { ownOrg } from './org-path';
import { NO_QUERY, param, parseBody, parseQuery } from './shared';

const BASE = '/orgs/:org_id/report-templates';

/**
 * The public report page's headers: nothing but inline styles may load, no framing, no
 * referrer, no caching of a time-limited link.
 */
export const PUBLIC_REPORT_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
};

/** analysis-api.md "Report templates" (writes admin, reads and preview member) and "Reports and report links". */
export function reportTemplateRoutes(): RouteDef[] {
  return [
    route({
      method: 'post',
      path: `${BASE}/seed-builtin`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await seedBuiltinTemplates(identityCtx(ctx), ownOrg(ctx, req)) }),
    }),
    route({
      method: 'post',
      path: `${BASE}/preview`,
      policy: 'member',
      body: 'json',
      requestBody: PreviewTemplateSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await previewTemplate(ctx.engine, ownOrg(ctx, req), parseBody(PreviewTemplateSchema, req), identityCtx(ctx).actor),
      }),
    }),
    route({
      method: 'post',
      path: BASE,
      policy: 'admin',
      body: 'json',
      requestBody: CreateTemplateSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await createTemplate(identityCtx(ctx), ownOrg(ctx, req), parseBody(CreateTemplateSchema, req)) }),
    }),
    route({
      method: 'get',
      path: BASE,
      policy: 'member',
      body: 'none',
      query: TemplatesQuerySchema,
      handler: async (ctx, req) => ({ body: await listTemplates(ctx.engine, ownOrg(ctx, req), parseQuery(TemplatesQuerySchema, req)) }),
    }),
    route({
      method: 'get',
      path: `${BASE}/:template_id`,
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getTemplate(ctx.engine, ownOrg(ctx, req), param(req, 'template_id')) }),
    }),
    route({
      method: 'patch',
      path: `${BASE}/:template_id`,
      policy: 'admin',
      body: 'json',
      requestBody: UpdateTemplateSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await updateTemplate(identityCtx(ctx), ownOrg(ctx, req), param(req, 'template_id'), parseBody(UpdateTemplateSchema, req)),
      }),
    }),
    route({
      method: 'delete',
      path: `${BASE}/:template_id`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteTemplate(identityCtx(ctx), ownOrg(ctx, req), param(req, 'template_id')) }),
    }),
    route({
      method: 'patch',
      path: '/orgs/:org_id/report-link-ttl',
      policy: 'admin',
      body: 'json',
      requestBody: ReportLinkTtlSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await setReportLinkTtl(identityCtx(ctx), ownOrg(ctx, req), parseBody(ReportLinkTtlSchema, req).ttl_hours) }),
    }),
    route({
      method: 'get',
      path: '/reports/:token',
      policy: 'public',
      body: 'none',
      query: SharedLinkQuerySchema,
      handler: async (ctx, req) => {
        const report = await openReportLink(ctx.engine, param(req, 'token'));
        return { contentType: report.contentType, body: report.content, headers: PUBLIC_REPORT_HEADERS };
      },
    }),
  ];
}
