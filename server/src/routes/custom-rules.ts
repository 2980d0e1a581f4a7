import { createCategory, deleteCategory, getCategory, listCategories, updateCategory } from '@planwarden/engine/rules/custom-category-service';
import {
  createCustomRule, deleteCustomRule, getCustomRule, listCustomRules, seedBuiltinRulesFor, updateCustomRule,
} from '@planwarden/engine/rules/custom-rule-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import {
  CreateCategorySchema, CreateCustomRuleSchema, CustomRulesQuerySchema, UpdateCategorySchema, UpdateCustomRuleSchema,
} from './custom-rules.schema';
import { ownOrg } from './org-path';
import { NO_QUERY, param, parseBody, parseQuery } from './shared';

const RULES = '/orgs/:org_id/rules';
const CATEGORIES = '/orgs/:org_id/rule-categories';

/**
 * analysis-api.md "Custom rules" (writes admin, reads member) and our rule-category endpoints
 * (docs/decisions.md: `/orgs/{org_id}/rule-categories`, same roles).
 */
export function customRuleRoutes(): RouteDef[] {
  return [
    route({
      method: 'post', path: `${RULES}/seed-builtin`, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await seedBuiltinRulesFor(identityCtx(ctx), ownOrg(ctx, req)) }),
    }),
    route({
      method: 'post', path: RULES, policy: 'admin', body: 'json', requestBody: CreateCustomRuleSchema, query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await createCustomRule(identityCtx(ctx), ownOrg(ctx, req), parseBody(CreateCustomRuleSchema, req)) }),
    }),
    route({
      method: 'get', path: RULES, policy: 'member', body: 'none', query: CustomRulesQuerySchema,
      handler: async (ctx, req) => ({ body: { rules: await listCustomRules(ctx.engine, ownOrg(ctx, req), parseQuery(CustomRulesQuerySchema, req)) } }),
    }),
    route({
      method: 'get', path: `${RULES}/:rule_id`, policy: 'member', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getCustomRule(ctx.engine, ownOrg(ctx, req), param(req, 'rule_id')) }),
    }),
    route({
      method: 'patch', path: `${RULES}/:rule_id`, policy: 'admin', body: 'json', requestBody: UpdateCustomRuleSchema, query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await updateCustomRule(identityCtx(ctx), ownOrg(ctx, req), param(req, 'rule_id'), parseBody(UpdateCustomRuleSchema, req)) }),
    }),
    route({
      method: 'delete', path: `${RULES}/:rule_id`, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteCustomRule(identityCtx(ctx), ownOrg(ctx, req), param(req, 'rule_id')) }),
    }),
    route({
      method: 'post', path: CATEGORIES, policy: 'admin', body: 'json', requestBody: CreateCategorySchema, query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await createCategory(identityCtx(ctx), ownOrg(ctx, req), parseBody(CreateCategorySchema, req)) }),
    }),
    route({
      method: 'get', path: CATEGORIES, policy: 'member', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: { categories: await listCategories(ctx.engine, ownOrg(ctx, req)) } }),
    }),
    route({
      method: 'get', path: `${CATEGORIES}/:category_id`, policy: 'member', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getCategory(ctx.engine, ownOrg(ctx, req), param(req, 'category_id')) }),
    }),
    route({
      method: 'patch', path: `${CATEGORIES}/:category_id`, policy: 'admin', body: 'json', requestBody: UpdateCategorySchema, query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await updateCategory(identityCtx(ctx), ownOrg(ctx, req), param(req, 'category_id'), parseBody(UpdateCategorySchema, req)) }),
    }),
    route({
      method: 'delete', path: `${CATEGORIES}/:category_id`, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteCategory(identityCtx(ctx), ownOrg(ctx, req), param(req, 'category_id')) }),
    }),
  ];
}
