import { findingsSummary, listFindingsJsonSliced } from '@planwarden/engine/findings/finding-service';
import { listFindingsWithNamespaces, riskiestNamespaces } from '@planwarden/engine/findings/finding-namespaces';
import { afterLapsedReopened, getFinding, triageFinding } from '@planwarden/engine/findings/suppression-expiry';
import { listFeedback, postFeedback } from '@planwarden/engine/findings/feedback-service';
import { resolveNoLongerDetected } from '@planwarden/engine/findings/resolve-no-longer-detected';
import { republishAfterTriage } from '@planwarden/engine/codehost/pull-report';
import { identityCtx } from '../auth/identity';
import { codehostDeps } from '../codehost/deps';
import type { ServerServices } from '../services';
import { route, type RouteDef } from '../http/route';
import {
  FeedbackQuerySchema,
  FindingsListQuerySchema,
  NamespaceRiskQuerySchema,
  PostFeedbackSchema,
  ResolveNoLongerDetectedSchema,
  SummaryQuerySchema,
  TriageFindingSchema,
} from './findings.schema';
import { writeJsonTextPages } from './json-slices';
import { NO_QUERY, param, parseBody, parseQuery } from './shared';

/** analysis-api.md "Findings and review feedback": findings, summary, triage PATCH, feedback log. */
export function findingRoutes(services: ServerServices): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/findings',
      policy: 'member',
      body: 'none',
      query: FindingsListQuerySchema,
      handler: async (ctx, req) => {
        const { limit, offset, include_namespaces, ...filter } = parseQuery(FindingsListQuerySchema, req);
        if (include_namespaces)
          return { body: await afterLapsedReopened(ctx.engine, ctx.orgId, () => listFindingsWithNamespaces(ctx.engine, ctx.orgId, filter, { limit, offset })) };
        // The body is built from the records' stored JSON (finding-view.ts), sent as is: same bytes
        // and headers as res.json; a page over one slice is rendered and sent a slice at a time (chunked).
        const page = await afterLapsedReopened(ctx.engine, ctx.orgId, () => listFindingsJsonSliced(ctx.engine, ctx.orgId, filter, { limit, offset }));
        if ('body' in page) return { contentType: 'application/json', body: page.body };
        return { contentType: 'application/json', stream: (out) => writeJsonTextPages(page.slices, out, '{"findings":', '}') };
      },
    }),
    route({
      method: 'get',
      path: '/findings/summary',
      policy: 'member',
      body: 'none',
      query: SummaryQuerySchema,
      handler: async (ctx, req) => {
        const { days } = parseQuery(SummaryQuerySchema, req);
        return { body: await afterLapsedReopened(ctx.engine, ctx.orgId, () => findingsSummary(ctx.engine, ctx.orgId, days)) };
      },
    }),
    route({
      method: 'get',
      path: '/findings/namespaces',
      policy: 'member',
      body: 'none',
      query: NamespaceRiskQuerySchema,
      handler: async (ctx, req) => {
        const { limit } = parseQuery(NamespaceRiskQuerySchema, req);
        return { body: await afterLapsedReopened(ctx.engine, ctx.orgId, () => riskiestNamespaces(ctx.engine, ctx.orgId, limit)) };
      },
    }),
    route({
      method: 'get',
      path: '/findings/:resource_hash/:rule_id',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getFinding(ctx.engine, ctx.orgId, param(req, 'resource_hash'), param(req, 'rule_id')) }),
    }),
    route({
      method: 'patch',
      path: '/findings/:resource_hash/:rule_id',
      policy: 'member',
      body: 'json',
      requestBody: TriageFindingSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        // The spec's update plus the suppression expiry (suppression-expiry.ts).
        const body = await triageFinding(identityCtx(ctx), ctx.orgId, param(req, 'resource_hash'), param(req, 'rule_id'), parseBody(TriageFindingSchema, req));
        // Re-post the commit status and rewrite the comment of every pull request the resource feeds (best effort, never an error).
        await republishAfterTriage(codehostDeps(services), ctx.engine, ctx.orgId, body.resource_hash);
        return { body };
      },
    }),
    route({
      method: 'post',
      path: '/findings/resolve-no-longer-detected',
      policy: 'member',
      body: 'json',
      requestBody: ResolveNoLongerDetectedSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const body = await resolveNoLongerDetected(identityCtx(ctx), ctx.orgId, parseBody(ResolveNoLongerDetectedSchema, req));
        // As after a PATCH: every pull request a resolved resource feeds is re-posted (best effort).
        for (const hash of new Set(body.resolved.map((f) => f.resource_hash))) {
          await republishAfterTriage(codehostDeps(services), ctx.engine, ctx.orgId, hash);
        }
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
