import { applyProposal, dismissProposal, listProposals, refreshProposals } from '@planwarden/engine/findings/proposal-service';
import { ruleHealth } from '@planwarden/engine/findings/rule-health';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ProposalsQuerySchema } from './findings.schema';
import { NO_QUERY, param, parseQuery } from './shared';

/** analysis-api.md "Findings and review feedback": rule health and rule proposals. */
export function ruleHealthRoutes(services: ServerServices): RouteDef[] {
  const settings = () => services.config.rule_health;
  return [
    route({
      method: 'get',
      path: '/rule-health',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await ruleHealth(ctx.engine, ctx.orgId, settings()) }),
    }),
    route({
      method: 'get',
      path: '/rule-proposals',
      policy: 'member',
      body: 'none',
      query: ProposalsQuerySchema,
      handler: async (ctx, req) => ({ body: await listProposals(ctx.engine, ctx.orgId, parseQuery(ProposalsQuerySchema, req).status) }),
    }),
    route({
      method: 'post',
      path: '/rule-proposals/refresh',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await refreshProposals(ctx.engine, ctx.orgId, settings()) }),
    }),
    route({
      method: 'post',
      path: '/rule-proposals/:proposal_id/apply',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await applyProposal(identityCtx(ctx), ctx.orgId, param(req, 'proposal_id')) }),
    }),
    route({
      method: 'post',
      path: '/rule-proposals/:proposal_id/dismiss',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await dismissProposal(identityCtx(ctx), ctx.orgId, param(req, 'proposal_id')) }),
    }),
  ];
}
