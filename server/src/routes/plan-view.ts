import { planView } from '@planwarden/engine/report/plan-view';
import { route, type RouteDef } from '../http/route';
import { NO_QUERY, param } from './shared';

/**
 * GET /{namespace}/plan (docs/decisions.md "Plan view"): the dashboard's first screen after an
 * analysis, the namespace's units with their plan action, module or file, and triage records.
 * Read-only; an addition to analysis-api.md, member like GET /{namespace}/resources.
 */
export function planViewRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/:namespace/plan',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await planView(ctx.engine, ctx.orgId, param(req, 'namespace')) }),
    }),
  ];
}
