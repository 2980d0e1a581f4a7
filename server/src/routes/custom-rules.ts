import type { Request } from 'express';
import { createCategory, deleteCategory, getCategory, listCategories, updateCategory } from '@planwarden/engine/rules/custom-category-service';
import {
  createCustomRule, deleteCustomRule, getCustomRule, listCustomRules, seedBuiltinRulesFor, updateCustomRule,
} from '@planwarden/engine/rules/custom-rule-service';
import { identityCtx } from '../auth/identity';
import type { RequestContext } from '../http/request-context';
import { route, type RouteDef } from '../http/route';
import {
  CreateCategorySchema, CreateCustomRuleSchema, CustomRulesQuerySchema, UpdateCategorySchema, UpdateCustomRuleSchema,
} from './custom-rules.schema';
import { param, parseBody, parseQuery, requireOwnOrg } from './shared';

const RULES = '/orgs/:org_id/rules';
const CATEGORIES = '/orgs/:org_id/rule-categories';

/** The path's org must be the caller's (another org answers 404). */
function own(ctx: RequestContext, req: Request): string {
  requireOwnOrg(ctx, param(req, 'org_id'));
  return ctx.orgId;
}

/**
 * analysis-api.md "Custom rules" (writes admin, reads member) and our rule-category endpoints
 * (docs/decisions.md: `/orgs/{org_id}/rule-categories`, same roles).
 */
export function customRuleRoutes(): RouteDef[] {
  return [
    route({
      method: 'post', path: `${RULES}/seed-builtin`, policy: 'admin', body: 'none',
      handler: async (ctx, req) => ({ body: await seedBuiltinRulesFor(identityCtx(ctx), own(ctx, req)) }),
    }),
    route({
      method: 'post', path: RULES, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ status: 201, body: await createCustomRule(identityCtx(ctx), own(ctx, req), parseBody(CreateCustomRuleSchema, req)) }),
    }),
    route({
      method: 'get', path: RULES, policy: 'member', body: 'none',
      handler: async (ctx, req) => ({ body: { rules: await listCustomRules(ctx.engine, own(ctx, req), parseQuery(CustomRulesQuerySchema, req)) } }),
    }),
    route({
      method: 'get', path: `${RULES}/:rule_id`, policy: 'member', body: 'none',
      handler: async (ctx, req) => ({ body: await getCustomRule(ctx.engine, own(ctx, req), param(req, 'rule_id')) }),
    }),
    route({
      method: 'patch', path: `${RULES}/:rule_id`, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ body: await updateCustomRule(identityCtx(ctx), own(ctx, req), param(req, 'rule_id'), parseBody(UpdateCustomRuleSchema, req)) }),
    }),
    route({
      method: 'delete', path: `${RULES}/:rule_id`, policy: 'admin', body: 'none',
      handler: async (ctx, req) => ({ body: await deleteCustomRule(identityCtx(ctx), own(ctx, req), param(req, 'rule_id')) }),
    }),
    route({
      method: 'post', path: CATEGORIES, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ status: 201, body: await createCategory(identityCtx(ctx), own(ctx, req), parseBody(CreateCategorySchema, req)) }),
    }),
    route({
      method: 'get', path: CATEGORIES, policy: 'member', body: 'none',
      handler: async (ctx, req) => ({ body: { categories: await listCategories(ctx.engine, own(ctx, req)) } }),
    }),
    route({
      method: 'get', path: `${CATEGORIES}/:category_id`, policy: 'member', body: 'none',
      handler: async (ctx, req) => ({ body: await getCategory(ctx.engine, own(ctx, req), param(req, 'category_id')) }),
    }),
    route({
      method: 'patch', path: `${CATEGORIES}/:category_id`, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ body: await updateCategory(identityCtx(ctx), own(ctx, req), param(req, 'category_id'), parseBody(UpdateCategorySchema, req)) }),
    }),
    route({
      method: 'delete', path: `${CATEGORIES}/:category_id`, policy: 'admin', body: 'none',
      handler: async (ctx, req) => ({ body: await deleteCategory(identityCtx(ctx), own(ctx, req), param(req, 'category_id')) }),
    }),
  ];
}
