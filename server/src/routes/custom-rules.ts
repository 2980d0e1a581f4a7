import type { Request } from 'express';
import { createCategory, deleteCategory, getCategory, listCategories, updateCategory } from '@planwarden/engine/custom-rules/custom-category-service';
import {
  createCustomRule,
  deleteCustomRule,
  getCustomRule,
  listCustomRules,
  seedBuiltinRulesFor,
  updateCustomRule,
} from '@planwarden/engine/custom-rules/custom-rule-service';
import { identityCtx } from '../auth/identity';
import { route, type Policy, type RouteDef } from '../http/route';
import type { RequestContext } from '../http/request-context';
import { CreateCategorySchema, CreateCustomRuleSchema, CustomRulesQuerySchema, UpdateCategorySchema, UpdateCustomRuleSchema } from './custom-rules.schema';
import { ownOrg } from './org-path';
import { NO_QUERY, param, parseBody, parseQuery } from './shared';

/** One mount of the custom-rule and rule-category endpoints (the org routes or the /admin mirror). */
export interface CustomRuleSurface {
  /** Path prefix holding `:org_id`, e.g. `/orgs/:org_id`; the surface adds `/rules` and `/rule-categories`. */
  readonly base: string;
  readonly read: Policy;
  readonly write: Policy;
  /** The org acted on: the caller's own (org routes, 404 for another) or the path's after a 404 check (admin mirror). */
  readonly orgOf: (ctx: RequestContext, req: Request) => Promise<string>;
}

/**
 * The custom-rule and rule-category routes of one surface: identical bodies, statuses, audit
 * events (rule.*, rule_category.*) and engine calls on both mounts; only the prefix, the
 * policies and how the org is chosen differ.
 */
export function customRuleSurface(s: CustomRuleSurface): RouteDef[] {
  const rules = `${s.base}/rules`;
  const categories = `${s.base}/rule-categories`;
  return [
    route({
      method: 'post',
      path: `${rules}/seed-builtin`,
      policy: s.write,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await seedBuiltinRulesFor(identityCtx(ctx), await s.orgOf(ctx, req)) }),
    }),
    route({
      method: 'post',
      path: rules,
      policy: s.write,
      body: 'json',
      requestBody: CreateCustomRuleSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        status: 201,
        body: await createCustomRule(identityCtx(ctx), await s.orgOf(ctx, req), parseBody(CreateCustomRuleSchema, req)),
      }),
    }),
    route({
      method: 'get',
      path: rules,
      policy: s.read,
      body: 'none',
      query: CustomRulesQuerySchema,
      handler: async (ctx, req) => ({ body: { rules: await listCustomRules(ctx.engine, await s.orgOf(ctx, req), parseQuery(CustomRulesQuerySchema, req)) } }),
    }),
    route({
      method: 'get',
      path: `${rules}/:rule_id`,
      policy: s.read,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getCustomRule(ctx.engine, await s.orgOf(ctx, req), param(req, 'rule_id')) }),
    }),
    route({
      method: 'patch',
      path: `${rules}/:rule_id`,
      policy: s.write,
      body: 'json',
      requestBody: UpdateCustomRuleSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await updateCustomRule(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'rule_id'), parseBody(UpdateCustomRuleSchema, req)),
      }),
    }),
    route({
      method: 'delete',
      path: `${rules}/:rule_id`,
      policy: s.write,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteCustomRule(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'rule_id')) }),
    }),
    route({
      method: 'post',
      path: categories,
      policy: s.write,
      body: 'json',
      requestBody: CreateCategorySchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        status: 201,
        body: await createCategory(identityCtx(ctx), await s.orgOf(ctx, req), parseBody(CreateCategorySchema, req)),
      }),
    }),
    route({
      method: 'get',
      path: categories,
      policy: s.read,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: { categories: await listCategories(ctx.engine, await s.orgOf(ctx, req)) } }),
    }),
    route({
      method: 'get',
      path: `${categories}/:category_id`,
      policy: s.read,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getCategory(ctx.engine, await s.orgOf(ctx, req), param(req, 'category_id')) }),
    }),
    route({
      method: 'patch',
      path: `${categories}/:category_id`,
      policy: s.write,
      body: 'json',
      requestBody: UpdateCategorySchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await updateCategory(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'category_id'), parseBody(UpdateCategorySchema, req)),
      }),
    }),
    route({
      method: 'delete',
      path: `${categories}/:category_id`,
      policy: s.write,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteCategory(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'category_id')) }),
    }),
  ];
}

/**
 * analysis-api.md "Custom rules" (writes admin, reads member) and our rule-category endpoints
 * (docs/decisions.md: `/orgs/{org_id}/rule-categories`, same roles).
 */
export function customRuleRoutes(): RouteDef[] {
  return customRuleSurface({ base: '/orgs/:org_id', read: 'member', write: 'admin', orgOf: async (ctx, req) => ownOrg(ctx, req) });
}
