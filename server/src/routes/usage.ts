import { QuotaSchema, setQuota, usageDocument } from '@planwarden/engine/usage/usage-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ownOrg } from './org-path';
import { NO_QUERY, parseBody } from './shared';

/** analysis-api.md "LLM credentials, quota, models": usage (viewer) and quota (admin). */
export function usageRoutes(services: ServerServices): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/orgs/:org_id/usage',
      policy: 'viewer',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        return { body: await usageDocument(ctx.engine, ownOrg(ctx, req), services.config.usage) };
      },
    }),
    route({
      method: 'patch',
      path: '/orgs/:org_id/quota',
      policy: 'admin',
      body: 'json',
      requestBody: QuotaSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        return { body: await setQuota(identityCtx(ctx), ownOrg(ctx, req), parseBody(QuotaSchema, req).monthly_budget_usd) };
      },
    }),
  ];
}
