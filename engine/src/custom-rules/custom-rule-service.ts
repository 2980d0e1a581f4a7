import { z } from 'zod';
import { SeveritySchema } from '../core/payload';
import type { EngineContext } from '../context/engine-context';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import type { CustomRuleDoc, RuleSnapshot } from './custom-rule-store';
import { ensureRulesSeeded, seedBuiltinRules } from './custom-seed';

/** analysis-api.md "Custom rule" presenter (explicit allow-list). */
export function presentCustomRule(r: CustomRuleDoc) {
  return {
    rule_id: r.rule_id,
    org_id: r.org_id,
    title: r.title,
    description: r.description,
    category: r.category,
    severity: r.severity,
    analyzers: r.analyzers,
    rule_type: r.rule_type,
    enabled: r.enabled,
    requires_review: r.requires_review,
    is_builtin_seed: r.is_builtin_seed,
    created_by: r.created_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** POST /orgs/{org_id}/rules body. */
export const CreateCustomRuleSchema = z
  .object({
    title: z.string().trim().min(1).max(200),
    description: z.string().max(20_000),
    category: z.string().min(1),
    severity: SeveritySchema,
    analyzers: z.array(z.string().min(1)).min(1),
    rule_type: z.string().min(1).nullable().default(null),
    enabled: z.boolean().default(true),
    requires_review: z.boolean().default(false),
  })
  .strict();
export type CreateCustomRule = z.infer<typeof CreateCustomRuleSchema>;

/** PATCH /orgs/{org_id}/rules/{rule_id} body: any field but rule_id. */
export const UpdateCustomRuleSchema = z
  .object({
    title: z.string().trim().min(1).max(200),
    description: z.string().max(20_000),
    category: z.string().min(1),
    severity: SeveritySchema,
    analyzers: z.array(z.string().min(1)).min(1),
    rule_type: z.string().min(1).nullable(),
    enabled: z.boolean(),
    requires_review: z.boolean(),
  })
  .partial()
  .strict();
export type UpdateCustomRule = z.infer<typeof UpdateCustomRuleSchema>;

/**
 * The rule_id derived from a title: `CUSTOM-` and the title's letters and digits upper-cased,
 * runs of anything else as one `-`, at most 64 characters. Throws ValidationError when nothing
 * is left. Derived once at creation; never changes (analysis-api.md "Custom rule").
 */
export function deriveRuleId(title: string): string {
  const slug = title
    .normalize('NFKD')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug === '') throw new ValidationError('title: must contain at least one letter or digit');
  return `CUSTOM-${slug}`.slice(0, 64).replace(/-+$/, '');
}

async function checkScope(
  ctx: EngineContext,
  orgId: string,
  input: { category?: string; analyzers?: string[]; rule_type?: string | null },
  current?: CustomRuleDoc,
) {
  if (input.category !== undefined && !(await ctx.stores.customRules.getCategory(orgId, input.category))) {
    throw new ValidationError(`category: '${input.category}' is not a category of this organization`);
  }
  const analyzers = input.analyzers ?? current?.analyzers ?? [];
  for (const name of input.analyzers ?? []) {
    if (!ctx.analyzers.get(name)) throw new NotFoundError(`Analyzer '${name}' is not registered`);
  }
  const ruleType = input.rule_type !== undefined ? input.rule_type : (current?.rule_type ?? null);
  if (ruleType !== null && !analyzers.some((a) => ctx.analyzers.get(a)?.ruleVariants?.includes(ruleType))) {
    throw new ValidationError(`rule_type: '${ruleType}' is not a rule variant of ${analyzers.join(', ')}`);
  }
}

function actorId(ctx: IdentityCtx): string | null {
  return ctx.actor.userId ?? ctx.actor.keyId;
}

/**
 * POST /orgs/{org_id}/rules: creates a custom rule with rule_id derived from the title.
 * Throws NotFoundError (404) for an unregistered analyzer, ValidationError (422) for a category
 * the org does not own or a rule_type no listed analyzer has, ConflictError (409) when the
 * derived rule_id exists. Audited rule.create. Returns the presented rule.
 */
export async function createCustomRule(ctx: IdentityCtx, orgId: string, input: CreateCustomRule) {
  const engine = ctx.engine;
  await ensureRulesSeeded(engine, orgId);
  await checkScope(engine, orgId, input);
  const rule: CustomRuleDoc = {
    org_id: orgId,
    rule_id: deriveRuleId(input.title),
    title: input.title,
    description: input.description,
    category: input.category,
    severity: input.severity,
    analyzers: [...new Set(input.analyzers)],
    rule_type: input.rule_type,
    enabled: input.enabled,
    requires_review: input.requires_review,
    is_builtin_seed: false,
    created_by: actorId(ctx),
    created_at: engine.now().toISOString(),
    updated_at: null,
  };
  try {
    await engine.stores.customRules.insert(rule);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`A rule with id '${rule.rule_id}' already exists`);
    throw error;
  }
  const presented = presentCustomRule(rule);
  await recordAudit(ctx, { orgId, action: 'rule.create', targetType: 'custom_rule', targetId: rule.rule_id, before: null, after: presented });
  return presented;
}

/** GET /orgs/{org_id}/rules with filters `analyzer`, `category`, `rule_type`, `enabled`. */
export async function listCustomRules(
  ctx: EngineContext,
  orgId: string,
  filter: { analyzer?: string; category?: string; rule_type?: string; enabled?: boolean },
) {
  await ensureRulesSeeded(ctx, orgId);
  const rows = await ctx.stores.customRules.list(orgId, { category: filter.category, rule_type: filter.rule_type, enabled: filter.enabled });
  return rows.filter((r) => !filter.analyzer || r.analyzers.includes(filter.analyzer)).map(presentCustomRule);
}

/** GET /orgs/{org_id}/rules/{rule_id}; NotFoundError (404). */
export async function getCustomRule(ctx: EngineContext, orgId: string, ruleId: string) {
  await ensureRulesSeeded(ctx, orgId);
  const rule = await ctx.stores.customRules.get(orgId, ruleId);
  if (!rule) throw new NotFoundError(`Rule '${ruleId}' not found`);
  return presentCustomRule(rule);
}

/**
 * PATCH /orgs/{org_id}/rules/{rule_id}: partial update; rule_id never changes (also when the
 * title does). Same 404/422 checks as create. Audited rule.update. Returns the presented rule.
 */
export async function updateCustomRule(ctx: IdentityCtx, orgId: string, ruleId: string, input: UpdateCustomRule) {
  const engine = ctx.engine;
  const before = await engine.stores.customRules.get(orgId, ruleId);
  if (!before) throw new NotFoundError(`Rule '${ruleId}' not found`);
  await checkScope(engine, orgId, input, before);
  const changes = { ...input, ...(input.analyzers ? { analyzers: [...new Set(input.analyzers)] } : {}), updated_at: engine.now().toISOString() };
  const after = await engine.stores.customRules.update(orgId, ruleId, changes);
  if (!after) throw new NotFoundError(`Rule '${ruleId}' not found`);
  const presented = presentCustomRule(after);
  await recordAudit(ctx, { orgId, action: 'rule.update', targetType: 'custom_rule', targetId: ruleId, before: presentCustomRule(before), after: presented });
  return presented;
}

/** DELETE /orgs/{org_id}/rules/{rule_id}; NotFoundError (404). Audited rule.delete. */
export async function deleteCustomRule(ctx: IdentityCtx, orgId: string, ruleId: string) {
  const before = await ctx.engine.stores.customRules.get(orgId, ruleId);
  if (!before || !(await ctx.engine.stores.customRules.delete(orgId, ruleId))) throw new NotFoundError(`Rule '${ruleId}' not found`);
  await recordAudit(ctx, { orgId, action: 'rule.delete', targetType: 'custom_rule', targetId: ruleId, before: presentCustomRule(before), after: null });
  return { detail: `Rule '${ruleId}' deleted` };
}

/** The org's rule ids whose matches always start needs_review (`requires_review` true, enabled). */
export async function requiresReviewRuleIds(ctx: EngineContext, orgId: string): Promise<ReadonlySet<string>> {
  const snapshot = await ctx.stores.customRules.snapshot(orgId);
  let ids = reviewIdsOf.get(snapshot);
  if (!ids) {
    ids = new Set(snapshot.rules.filter((r) => r.enabled && r.requires_review).map((r) => r.rule_id));
    reviewIdsOf.set(snapshot, ids);
  }
  return ids;
}

/** requiresReviewRuleIds per rules snapshot: computed once while the org's rules are unchanged. */
const reviewIdsOf = new WeakMap<RuleSnapshot, ReadonlySet<string>>();

/**
 * POST /orgs/{org_id}/rules/seed-builtin: idempotent import of the built-in rules
 * (rules/custom-seed.ts). Returns `{created}`. Audited rule.seed_builtin.
 */
export async function seedBuiltinRulesFor(ctx: IdentityCtx, orgId: string) {
  const result = await seedBuiltinRules(ctx.engine, orgId, actorId(ctx));
  await recordAudit(ctx, { orgId, action: 'rule.seed_builtin', targetType: 'custom_rule', targetId: null, before: null, after: result });
  return result;
}
