import { listReportLinks, revokeReportLink } from '@planwarden/engine/report/report-link-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import { ownOrg } from './org-path';
import { NO_QUERY, param } from './shared';

const BASE = '/orgs/:org_id/report-links';

/**
 * Public report links: list and revoke (an extension of analysis-api.md "Reports and report
 * links", docs/decisions.md "Public report links: list and revoke"). Admin only; another org's
 * path or link id answers 404 like a missing one. The token is never listed; a revoked link's
 * GET /reports/{token} answers the same 404 as an unknown token.
 */
export function reportLinkRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: BASE,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await listReportLinks(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'delete',
      path: `${BASE}/:link_id`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await revokeReportLink(identityCtx(ctx), ownOrg(ctx, req), param(req, 'link_id'));
        return { status: 204 };
      },
    }),
  ];
}
