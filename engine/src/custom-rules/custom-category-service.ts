import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import type { RuleCategoryDoc } from './custom-rule-store';
import { ensureRulesSeeded } from './custom-seed';

/**
 * Rule categories (analysis-api.md leaves their endpoints "not shown"; docs/decisions.md):
 * `/orgs/{org_id}/rule-categories`, category_id = slug of the name, immutable.
 */

/** Category presenter (explicit allow-list). */
export function presentCategory(c: RuleCategoryDoc) {
  return {
    category_id: c.category_id,
    org_id: c.org_id,
    name: c.name,
    description: c.description,
    is_builtin_seed: c.is_builtin_seed,
    created_by: c.created_by,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export const CreateCategorySchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(2000).default(''),
  })
  .strict();
export const UpdateCategorySchema = CreateCategorySchema.partial().strict();

/** Lower-case slug: letters and digits, other runs as `-`, at most 64 chars. ValidationError when empty. */
export function categorySlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  if (slug === '') throw new ValidationError('name: must contain at least one letter or digit');
  return slug;
}

/** POST: creates a category; ConflictError (409) when the slug exists. Audited rule_category.create. */
export async function createCategory(ctx: IdentityCtx, orgId: string, input: z.infer<typeof CreateCategorySchema>) {
  await ensureRulesSeeded(ctx.engine, orgId);
  const doc: RuleCategoryDoc = {
    org_id: orgId,
    category_id: categorySlug(input.name),
    name: input.name,
    description: input.description,
    is_builtin_seed: false,
    created_by: ctx.actor.userId ?? ctx.actor.keyId,
    created_at: ctx.engine.now().toISOString(),
    updated_at: null,
  };
  try {
    await ctx.engine.stores.customRules.insertCategory(doc);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`A category with id '${doc.category_id}' already exists`);
    throw error;
  }
  const presented = presentCategory(doc);
  await recordAudit(ctx, { orgId, action: 'rule_category.create', targetType: 'rule_category', targetId: doc.category_id, before: null, after: presented });
  return presented;
}

/** GET list, by category_id. */
export async function listCategories(ctx: EngineContext, orgId: string) {
  await ensureRulesSeeded(ctx, orgId);
  return (await ctx.stores.customRules.listCategories(orgId)).map(presentCategory);
}

/** GET one; NotFoundError (404). */
export async function getCategory(ctx: EngineContext, orgId: string, categoryId: string) {
  const doc = await ctx.stores.customRules.getCategory(orgId, categoryId);
  if (!doc) throw new NotFoundError(`Category '${categoryId}' not found`);
  return presentCategory(doc);
}

/** PATCH name/description (the id stays); NotFoundError (404). Audited rule_category.update. */
export async function updateCategory(ctx: IdentityCtx, orgId: string, categoryId: string, input: z.infer<typeof UpdateCategorySchema>) {
  const before = await ctx.engine.stores.customRules.getCategory(orgId, categoryId);
  if (!before) throw new NotFoundError(`Category '${categoryId}' not found`);
  const after = await ctx.engine.stores.customRules.updateCategory(orgId, categoryId, { ...input, updated_at: ctx.engine.now().toISOString() });
  if (!after) throw new NotFoundError(`Category '${categoryId}' not found`);
  const presented = presentCategory(after);
  await recordAudit(ctx, {
    orgId,
    action: 'rule_category.update',
    targetType: 'rule_category',
    targetId: categoryId,
    before: presentCategory(before),
    after: presented,
  });
  return presented;
}

/** DELETE; NotFoundError (404); ConflictError (409) while rules use it. Audited rule_category.delete. */
export async function deleteCategory(ctx: IdentityCtx, orgId: string, categoryId: string) {
  const before = await ctx.engine.stores.customRules.getCategory(orgId, categoryId);
  if (!before) throw new NotFoundError(`Category '${categoryId}' not found`);
  const inUse = await ctx.engine.stores.customRules.countInCategory(orgId, categoryId);
  if (inUse > 0) throw new ConflictError(`Category '${categoryId}' is used by ${inUse} rule(s)`);
  await ctx.engine.stores.customRules.deleteCategory(orgId, categoryId);
  await recordAudit(ctx, {
    orgId,
    action: 'rule_category.delete',
    targetType: 'rule_category',
    targetId: categoryId,
    before: presentCategory(before),
    after: null,
  });
  return { detail: `Category '${categoryId}' deleted` };
}
