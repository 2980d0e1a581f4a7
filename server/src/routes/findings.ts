import { findingsSummary, listFindings, updateFindingStatus } from '@planwarden/engine/findings/finding-service';
import { listFeedback, postFeedback } from '@planwarden/engine/findings/feedback-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import { FeedbackQuerySchema, FindingsQuerySchema, PostFeedbackSchema, SummaryQuerySchema, UpdateFindingSchema } from './findings.schema';
import { param, parseBody, parseQuery } from './shared';

/** analysis-api.md "Findings and review feedback": findings, summary, triage PATCH, feedback log. */
export function findingRoutes(): RouteDef[] {
  return [
    route({
      method: 'get', path: '/findings', policy: 'member', body: 'none',
      handler: async (ctx, req) => {
        const { limit, offset, ...filter } = parseQuery(FindingsQuerySchema, req);
        return { body: await listFindings(ctx.engine, ctx.orgId, filter, { limit, offset }) };
      },
    }),
    route({
      method: 'get', path: '/findings/summary', policy: 'member', body: 'none',
      handler: async (ctx, req) => ({ body: await findingsSummary(ctx.engine, ctx.orgId, parseQuery(SummaryQuerySchema, req).days) }),
    }),
    route({
      method: 'patch', path: '/findings/:resource_hash/:rule_id', policy: 'member', body: 'json',
      handler: async (ctx, req) => ({
        body: await updateFindingStatus(identityCtx(ctx), ctx.orgId, param(req, 'resource_hash'), param(req, 'rule_id'), parseBody(UpdateFindingSchema, req)),
      }),
    }),
    route({
      method: 'get', path: '/feedback', policy: 'member', body: 'none',
      handler: async (ctx, req) => {
        const { limit, offset, ...filter } = parseQuery(FeedbackQuerySchema, req);
        return { body: await listFeedback(ctx.engine, ctx.orgId, filter, { limit, offset }) };
      },
    }),
    route({
      method: 'post', path: '/feedback', policy: 'member', body: 'json',
      handler: async (ctx, req) => ({ status: 201, body: await postFeedback(identityCtx(ctx), ctx.orgId, parseBody(PostFeedbackSchema, req)) }),
    }),
  ];
}
