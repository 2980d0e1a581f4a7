import { findingsSummary, listFindingsJson, updateFindingStatus } from '@planwarden/engine/findings/finding-service';
import { listFeedback, postFeedback } from '@planwarden/engine/findings/feedback-service';
import { republishAfterTriage } from '@planwarden/engine/codehost/pull-report';
import { identityCtx } from '../auth/identity';
import { codehostDeps } from '../codehost/deps';
import type { ServerServices } from '../services';
import { route, type RouteDef } from '../http/route';
import { FeedbackQuerySchema, FindingsQuerySchema, PostFeedbackSchema, SummaryQuerySchema, UpdateFindingSchema } from './findings.schema';
import { NO_QUERY, param, parseBody, parseQuery } from './shared';

/** analysis-api.md "Findings and review feedback": findings, summary, triage PATCH, feedback log. */
export function findingRoutes(services: ServerServices): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/findings',
      policy: 'member',
      body: 'none',
      query: FindingsQuerySchema,
      handler: async (ctx, req) => {
        const { limit, offset, ...filter } = parseQuery(FindingsQuerySchema, req);
        // The body is built from the records' stored JSON (finding-view.ts), sent as is: same bytes and headers as res.json.
        return { contentType: 'application/json', body: await listFindingsJson(ctx.engine, ctx.orgId, filter, { limit, offset }) };
      },
    }),
    route({
      method: 'get',
      path: '/findings/summary',
      policy: 'member',
      body: 'none',
      query: SummaryQuerySchema,
      handler: async (ctx, req) => ({ body: await findingsSummary(ctx.engine, ctx.orgId, parseQuery(SummaryQuerySchema, req).days) }),
    }),
    route({
      method: 'patch',
      path: '/findings/:resource_hash/:rule_id',
      policy: 'member',
      body: 'json',
      requestBody: UpdateFindingSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const body = await updateFindingStatus(
          identityCtx(ctx),
          ctx.orgId,
          param(req, 'resource_hash'),
          param(req, 'rule_id'),
          parseBody(UpdateFindingSchema, req),
        );
        // Re-post the commit status and rewrite the comment of every pull request the resource feeds (best effort, never an error).
        await republishAfterTriage(codehostDeps(services), ctx.engine, ctx.orgId, body.resource_hash);
        return { body };
      },
    }),
    route({
      method: 'get',
      path: '/feedback',
      policy: 'member',
      body: 'none',
      query: FeedbackQuerySchema,
      handler: async (ctx, req) => {
        const { limit, offset, ...filter } = parseQuery(FeedbackQuerySchema, req);
        return { body: await listFeedback(ctx.engine, ctx.orgId, filter, { limit, offset }) };
      },
    }),
    route({
      method: 'post',
      path: '/feedback',
      policy: 'member',
      body: 'json',
      requestBody: PostFeedbackSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await postFeedback(identityCtx(ctx), ctx.orgId, parseBody(PostFeedbackSchema, req)) }),
    }),
  ];
}
