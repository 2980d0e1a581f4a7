import { z } from 'zod';
import { deleteReviewWebhook, getReviewWebhook, putReviewWebhook } from '@planwarden/engine/notify/review-webhook';
import { route, type RouteDef } from '../http/route';
import { ownOrg } from './org-path';
import { NO_QUERY, parseBody } from './shared';

/** PUT body: replaces the whole config; an omitted secret clears the stored one. */
export const ReviewWebhookSchema = z
  .object({
    url: z.string().min(1).max(2048),
    secret: z.string().min(1).max(512).nullable().default(null),
    enabled: z.boolean().default(true),
  })
  .strict();

const PATH = '/orgs/:org_id/integrations/review-webhook';

/**
 * analysis-api.md "Review webhook (legacy; still fires alongside channels)": all admin. The URL
 * goes through the egress policy (engine/src/net/egress.ts): 422 naming the rule at PUT, and
 * the resolved address is checked again at every delivery.
 */
export function reviewWebhookRoutes(): RouteDef[] {
  return [
    route({
      method: 'put',
      path: PATH,
      policy: 'admin',
      body: 'json',
      requestBody: ReviewWebhookSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        return { body: await putReviewWebhook(ctx.engine, ownOrg(ctx, req), parseBody(ReviewWebhookSchema, req)) };
      },
    }),
    route({
      method: 'get',
      path: PATH,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        return { body: await getReviewWebhook(ctx.engine, ownOrg(ctx, req)) };
      },
    }),
    route({
      method: 'delete',
      path: PATH,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        return { body: await deleteReviewWebhook(ctx.engine, ownOrg(ctx, req)) };
      },
    }),
  ];
}
