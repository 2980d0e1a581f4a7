import { z } from 'zod';
import { deleteReviewWebhook, getReviewWebhook, putReviewWebhook } from '@planwarden/engine/notify/review-webhook';
import { route, type RouteDef } from '../http/route';
import { ownOrg } from './org-path';
import { parseBody } from './shared';

/** PUT body: replaces the whole config; an omitted secret clears the stored one. */
export const ReviewWebhookSchema = z.object({
  url: z.string().min(1).max(2048),
  secret: z.string().min(1).max(512).nullable().default(null),
  enabled: z.boolean().default(true),
}).strict();

const PATH = '/orgs/:org_id/integrations/review-webhook';

/** analysis-api.md "Review webhook (legacy; still fires alongside channels)": all admin. */
export function reviewWebhookRoutes(): RouteDef[] {
  return [
    route({
      method: 'put', path: PATH, policy: 'admin', body: 'json',
      handler: async (ctx, req) => {
        return { body: await putReviewWebhook(ctx.engine, ownOrg(ctx, req), parseBody(ReviewWebhookSchema, req)) };
      },
    }),
    route({
      method: 'get', path: PATH, policy: 'admin', body: 'none',
      handler: async (ctx, req) => {
        return { body: await getReviewWebhook(ctx.engine, ownOrg(ctx, req)) };
      },
    }),
    route({
      method: 'delete', path: PATH, policy: 'admin', body: 'none',
      handler: async (ctx, req) => {
        return { body: await deleteReviewWebhook(ctx.engine, ownOrg(ctx, req)) };
      },
    }),
  ];
}
