import { z } from 'zod';
import { listOrgAnalyzers, requireAnalyzer, setAnalyzerEnabled } from '@planwarden/engine/analysis/analyzer-access';
import { resolveRuleset } from '@planwarden/engine/analysis/ruleset-service';
import { route, type RouteDef } from '../http/route';
import { RulesQuerySchema } from './analyzers.schema';
import { NO_QUERY, param, parseBody, parseQuery, requireOwnOrg } from './shared';

const EnableSchema = z.object({ enabled: z.boolean() });

/** analysis-api.md "Analyzers and built-in rulesets". */
export function analyzerRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/analyzers',
      policy: 'viewer',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({
        body: { analyzers: ctx.engine.analyzers.list().map((a) => ({ name: a.name, description: a.description })) },
      }),
    }),
    route({
      method: 'get',
      path: '/orgs/:org_id/analyzers',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        requireOwnOrg(ctx, param(req, 'org_id'));
        return { body: { analyzers: await listOrgAnalyzers(ctx.engine, ctx.orgId) } };
      },
    }),
    route({
      method: 'post',
      path: '/orgs/:org_id/analyzers/:analyzer_name',
      policy: 'admin',
      body: 'json',
      requestBody: EnableSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        requireOwnOrg(ctx, param(req, 'org_id'));
        const { enabled } = parseBody(EnableSchema, req);
        return { body: await setAnalyzerEnabled(ctx.engine, ctx.orgId, param(req, 'analyzer_name'), enabled) };
      },
    }),
    route({
      method: 'delete',
      path: '/orgs/:org_id/analyzers/:analyzer_name',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        requireOwnOrg(ctx, param(req, 'org_id'));
        return { body: await setAnalyzerEnabled(ctx.engine, ctx.orgId, param(req, 'analyzer_name'), false) };
      },
    }),
    route({
      method: 'get',
      path: '/:analyzer_name/rules',
      policy: 'member',
      body: 'none',
      query: RulesQuerySchema,
      handler: async (ctx, req) => {
        const { type } = parseQuery(RulesQuerySchema, req);
        const analyzer = await requireAnalyzer(ctx.engine, ctx.orgId, param(req, 'analyzer_name'));
        const ruleset = await resolveRuleset(ctx.engine, ctx.orgId, analyzer, type ?? null);
        return { contentType: 'text/markdown; charset=utf-8', body: ruleset.text, headers: { ETag: `"${ruleset.digest}"` } };
      },
    }),
  ];
}
