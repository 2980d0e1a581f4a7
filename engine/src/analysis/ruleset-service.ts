import type { Analyzer } from '../analyzers/types';
import type { EngineContext } from '../context';
import { NotFoundError, NotImplementedError } from '../errors';
import { loadBuiltinRuleset, rulesetDigest } from '../rules/ruleset';

export interface ResolvedRuleset {
  readonly analyzer: string;
  readonly variant: string;
  /** The exact Markdown given to the model (and to clients by GET /{analyzer}/rules). */
  readonly text: string;
  /** Hex SHA-256 of `text`; an analysis records it, and a changed ruleset re-analyses. */
  readonly digest: string;
}

/**
 * The ruleset an org applies with `analyzer` and rule variant `variant` (null = the analyzer's
 * default). Throws NotImplementedError (501) when the analyzer has no rules and NotFoundError
 * (404) when it has no rule file for the variant (analysis-api.md GET /{analyzer_name}/rules).
 */
/**
 * The ruleset for one stored resource: the caller's `variant` when given, else the variant the
 * analyzer picks for the unit (provider rules for an AWS/Azure/GCP resource), else the default.
 */
export function unitRuleVariant(analyzer: Analyzer, resource: { value: { type: string }; metadata: Record<string, unknown> }, variant: string | null): string | null {
  return variant ?? analyzer.ruleVariantFor?.({ type: resource.value.type, metadata: resource.metadata }) ?? null;
}

export async function resolveRuleset(ctx: EngineContext, orgId: string, analyzer: Analyzer, variant: string | null): Promise<ResolvedRuleset> {
  void ctx; void orgId; // org-specific custom rules join here (custom-rules issue)
  if (!analyzer.defaultRuleVariant || !analyzer.ruleVariants || analyzer.ruleVariants.length === 0) {
    throw new NotImplementedError(`Analyzer '${analyzer.name}' has no rules`);
  }
  const chosen = variant ?? analyzer.defaultRuleVariant;
  if (!analyzer.ruleVariants.includes(chosen)) {
    throw new NotFoundError(`Analyzer '${analyzer.name}' has no rule file for type '${chosen}'`);
  }
  const text = loadBuiltinRuleset(analyzer.name, chosen);
  return { analyzer: analyzer.name, variant: chosen, text, digest: rulesetDigest(text) };
}
