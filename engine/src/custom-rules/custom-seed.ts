import type { EngineContext } from '../context/engine-context';
import { insertedUnlessConflict } from '../core/errors';
import { builtinRuleEntries } from './custom-builtin';
import type { CustomRuleDoc } from './custom-rule-store';

/** category_id of the category seeded built-in rules of `analyzer` go to. */
export function builtinCategoryId(analyzer: string): string {
  return `built-in-${analyzer.toLowerCase()}`;
}

/**
 * POST /orgs/{org_id}/rules/seed-builtin (analysis-api.md "Custom rules"): imports every
 * registered analyzer's built-in rules as enabled rows (`is_builtin_seed` true), each in the
 * category `built-in-<analyzer>` (created when missing). Idempotent: existing rule_ids are left
 * untouched. Marks the org `rules_seeded_at`. Returns `{created}` (rules created by this call).
 */
export async function seedBuiltinRules(ctx: EngineContext, orgId: string, createdBy: string | null): Promise<{ created: number }> {
  const now = ctx.now().toISOString();
  const entries = builtinRuleEntries(ctx.analyzers);
  const existing = new Set((await ctx.stores.customRules.list(orgId)).map((r) => r.rule_id));
  const categories = new Set((await ctx.stores.customRules.listCategories(orgId)).map((c) => c.category_id));
  const rows: CustomRuleDoc[] = [];
  for (const entry of entries) {
    const category = builtinCategoryId(entry.analyzer);
    if (!categories.has(category)) {
      await insertedUnlessConflict(() =>
        ctx.stores.customRules.insertCategory({
          org_id: orgId,
          category_id: category,
          name: `Built-in ${entry.analyzer}`,
          description: `Built-in rules of the ${entry.analyzer} analyzer`,
          is_builtin_seed: true,
          created_by: createdBy,
          created_at: now,
          updated_at: null,
        }),
      );
      categories.add(category);
    }
    if (existing.has(entry.rule_id)) continue;
    rows.push({
      org_id: orgId,
      rule_id: entry.rule_id,
      title: entry.title,
      description: entry.description,
      category,
      severity: entry.severity,
      analyzers: [entry.analyzer],
      rule_type: entry.rule_type,
      enabled: true,
      requires_review: false,
      is_builtin_seed: true,
      created_by: createdBy,
      created_at: now,
      updated_at: null,
    });
  }
  // One write for the lot (a concurrent seeding's rows are left out one by one).
  const created = await ctx.stores.customRules.insertNew(orgId, rows);
  // Any seeding (org creation, the endpoint, the lazy first use) counts as the org's import.
  const org = await ctx.stores.orgs.get(orgId);
  if (org && !org.rules_seeded_at) await ctx.stores.orgs.update(orgId, { rules_seeded_at: now });
  return { created };
}

/**
 * "New orgs get the built-ins imported automatically": seeds an org once, the first time any
 * ruleset or rule list of it is needed (or at startup for the default org), whoever created it.
 * Marks the org `rules_seeded_at`, so rows an admin deletes later are not re-imported.
 */
export async function ensureRulesSeeded(ctx: EngineContext, orgId: string): Promise<void> {
  const org = await ctx.stores.orgs.get(orgId);
  if (!org || org.rules_seeded_at) return;
  await seedBuiltinRules(ctx, orgId, null);
}
