import type { Analyzer } from '../core/unit';
import type { AnalyzerRegistry, EngineContext } from '../context/engine-context';
import { NotFoundError, NotImplementedError, ValidationError } from '../core/errors';
import { applySeedOverrides } from '../custom-rules/custom-builtin';
import type { CustomRuleDoc } from '../custom-rules/custom-rule-store';
import { ensureRulesSeeded } from '../custom-rules/custom-seed';
import { composeRuleset, loadBuiltinRuleset, rulesetBlocks, rulesetDigest, type CustomRuleSection, type RuleDef } from '../rules/ruleset';
import { planAction, selectRules, type SelectableUnit } from '../rules/select';

export interface ResolvedRuleset {
  readonly analyzer: string;
  readonly variant: string;
  /** The exact Markdown given to the model (and to clients by GET /{analyzer}/rules). */
  readonly text: string;
  /** Hex SHA-256 of `text`; an analysis records it, and a changed ruleset re-analyses. */
  readonly digest: string;
}

/**
 * The ruleset for one stored resource: the caller's `variant` when given, else the variant the
 * analyzer picks for the unit (provider rules for an AWS/Azure/GCP resource), else the default.
 */
export function unitRuleVariant(
  analyzer: Analyzer,
  resource: { value: { type: string }; metadata: Record<string, unknown> },
  variant: string | null,
): string | null {
  return variant ?? analyzer.ruleVariantFor?.({ type: resource.value.type, metadata: resource.metadata }) ?? null;
}

/**
 * Checked before any work (analysis-api.md POST /{analyzer_name}/{namespace}/analyze `rule_type`):
 * a `ruleType` that is not one of `analyzer`'s rule variants throws ValidationError (422) naming
 * the variants it has; null passes.
 */
export function assertRuleVariant(analyzer: Analyzer, ruleType: string | null): void {
  if (ruleType === null) return;
  const variants = analyzer.ruleVariants ?? [];
  if (variants.includes(ruleType)) return;
  const known = variants.length > 0 ? `one of: ${variants.join(', ')}` : 'it has no rules';
  throw new ValidationError(`rule_type '${ruleType}' is not a rule variant of analyzer '${analyzer.name}' (${known})`);
}

/**
 * Checked before any work (analysis-api.md GET /{namespace}/resource/next `rule_type`): a
 * `ruleType` that no installed analyzer has as a rule variant throws ValidationError (422)
 * listing the known variants; null passes. A namespace may mix analyzers, so any one suffices.
 */
export function assertKnownRuleType(analyzers: AnalyzerRegistry, ruleType: string | null): void {
  if (ruleType === null) return;
  const known = [...new Set(analyzers.list().flatMap((a) => a.ruleVariants ?? []))].sort();
  if (known.includes(ruleType)) return;
  throw new ValidationError(`Unknown rule_type '${ruleType}' (known rule variants: ${known.join(', ')})`);
}

/** A custom rule applies to (analyzer, variant) when it targets the analyzer and its rule_type is null or the variant. */
function applies(rule: CustomRuleDoc, analyzer: string, variant: string): boolean {
  return rule.analyzers.includes(analyzer) && (rule.rule_type === null || rule.rule_type === variant);
}

/** Resolved rulesets by org, rules revision, analyzer and variant (resolveRuleset); oldest dropped first. */
const resolvedCache = new Map<string, ResolvedRuleset>();
const RESOLVED_CACHE_MAX = 256;

/**
 * The ruleset an org applies with `analyzer` and rule variant `variant` (null = the analyzer's
 * default): the built-in text with the org's seeded built-in rows applied (disabled ones
 * removed, edited ones replaced in place), then the enabled custom rules that target the
 * analyzer (rule_type null or `variant`) grouped by category name (analysis-api.md "Custom
 * rules"; rules/ruleset.ts composeRuleset). Seeds the org's built-in rows on first use.
 * Throws NotImplementedError (501) when the analyzer has no rules and NotFoundError (404) when
 * it has no rule file for the variant (analysis-api.md GET /{analyzer_name}/rules).
 * Memoised while the org's rules are unchanged (CustomRuleStore.snapshot).
 */
export async function resolveRuleset(ctx: EngineContext, orgId: string, analyzer: Analyzer, variant: string | null): Promise<ResolvedRuleset> {
  if (!analyzer.defaultRuleVariant || !analyzer.ruleVariants || analyzer.ruleVariants.length === 0) {
    throw new NotImplementedError(`Analyzer '${analyzer.name}' has no rules`);
  }
  const chosen = variant ?? analyzer.defaultRuleVariant;
  if (!analyzer.ruleVariants.includes(chosen)) {
    throw new NotFoundError(`Analyzer '${analyzer.name}' has no rule file for type '${chosen}'`);
  }
  await ensureRulesSeeded(ctx, orgId);
  const snapshot = await ctx.stores.customRules.snapshot(orgId);
  // The revision is a random token per store and write (custom-rule-store.ts), so the key never
  // names another store's or an older state's rules.
  const key = `${orgId}\u0000${snapshot.revision}\u0000${analyzer.name}\u0000${chosen}`;
  const cached = resolvedCache.get(key);
  if (cached) return cached;
  const rows = snapshot.rules.filter((r) => applies(r, analyzer.name, chosen));
  const seeded = rows.filter((r) => r.is_builtin_seed);
  const custom = rows.filter((r) => !r.is_builtin_seed && r.enabled);
  const names = new Map(snapshot.categories.map((c) => [c.category_id, c.name]));
  const sections: CustomRuleSection[] = custom.map((r) => ({ category: names.get(r.category) ?? r.category, rules: [r] }));
  const text = composeRuleset(applySeedOverrides(loadBuiltinRuleset(analyzer.name, chosen), seeded), sections);
  const resolved = { analyzer: analyzer.name, variant: chosen, text, digest: rulesetDigest(text) };
  if (resolvedCache.size >= RESOLVED_CACHE_MAX) resolvedCache.delete(resolvedCache.keys().next().value!);
  resolvedCache.set(key, resolved);
  return resolved;
}

/** The rules of a resolved ruleset that apply to one unit: what is sent to a model or a client-led caller. */
export interface UnitRuleset {
  readonly analyzer: string;
  readonly variant: string;
  /** The selected Markdown, exactly as sent (rules/select.ts). */
  readonly text: string;
  /** Hex SHA-256 of `text`: recorded with the analysis; a changed selection re-analyses. */
  readonly digest: string;
  /** The selected rules (ids, severities, checks). */
  readonly rules: readonly RuleDef[];
}

const selectionCache = new Map<string, UnitRuleset>();
const SELECTION_CACHE_MAX = 512;

/**
 * The part of `ruleset` that applies to `unit` (rules/select.ts selectRules) with its digest.
 * Memoised per (ruleset digest, unit type, unit source, plan action): units alike share one object.
 */
export function unitRuleset(ruleset: ResolvedRuleset, unit: SelectableUnit): UnitRuleset {
  const key = `${ruleset.digest}\u0000${unit.type}\u0000${String(unit.metadata.source ?? '')}\u0000${planAction(unit)}`;
  const cached = selectionCache.get(key);
  if (cached) return cached;
  const selected = selectRules(ruleset.text, unit);
  const result = { analyzer: ruleset.analyzer, variant: ruleset.variant, text: selected.text, digest: rulesetDigest(selected.text), rules: selected.rules };
  if (selectionCache.size >= SELECTION_CACHE_MAX) selectionCache.delete(selectionCache.keys().next().value!);
  selectionCache.set(key, result);
  return result;
}

/** The ruleset selected for one stored resource (see unitRuleset). */
export function resourceRuleset(
  ruleset: ResolvedRuleset,
  resource: { value: { type: string; action: string }; metadata: Record<string, unknown> },
): UnitRuleset {
  return unitRuleset(ruleset, { type: resource.value.type, action: resource.value.action, metadata: resource.metadata });
}

const idCache = new Map<string, ReadonlySet<string>>();

/**
 * Every rule id an org's rulesets of `analyzer` declare, over all its rule variants (built-ins
 * with the org's seed edits, enabled custom rules): what a client-led analysis may cite (a client
 * may have applied any variant it fetched from GET /{analyzer}/rules). Null when the analyzer
 * has no rules (nothing to check against).
 */
export async function analyzerRuleIds(ctx: EngineContext, orgId: string, analyzer: Analyzer): Promise<ReadonlySet<string> | null> {
  if (!analyzer.defaultRuleVariant || !analyzer.ruleVariants || analyzer.ruleVariants.length === 0) return null;
  const ids = new Set<string>();
  for (const variant of analyzer.ruleVariants) {
    const { text, digest } = await resolveRuleset(ctx, orgId, analyzer, variant);
    let known = idCache.get(digest);
    if (!known) {
      known = new Set(rulesetBlocks(text).flatMap((b) => (b.rule ? [b.rule.id] : [])));
      if (idCache.size >= 256) idCache.delete(idCache.keys().next().value!);
      idCache.set(digest, known);
    }
    for (const id of known) ids.add(id);
  }
  return ids;
}
