import type { AnalyzerRegistry } from '../context/engine-context';
import type { Severity } from '../core/payload';
import { BASE_RULE_VARIANT, composeRuleset, listBuiltinRuleVariants, loadBuiltinRuleset, parseRules, type RuleDef } from '../rules/ruleset';
import type { CustomRuleDoc } from './custom-rule-store';

/**
 * Built-in rules as custom-rule rows (analysis-api.md "Custom rules": seed-builtin) and the
 * way seeded rows act on the built-in text (docs/decisions.md "seeded built-in rules").
 */

/** One built-in rule with the scope a seeded row gets. */
export interface BuiltinRuleEntry {
  readonly analyzer: string;
  /** null for the analyzer's base (`default`) rules, which every variant includes. */
  readonly rule_type: string | null;
  readonly rule_id: string;
  readonly title: string;
  readonly severity: Severity;
  /** The section without its heading and Severity lines. */
  readonly description: string;
}

const SEVERITY_LINE = /^[ \t]*(?:[-*][ \t]+)?(?:\*\*|__)?severity[ \t]*(?:\*\*|__)?[ \t]*:/i;

/** The description a seeded row stores for a built-in rule section. */
export function seedDescription(rule: RuleDef): string {
  const lines = rule.body.split('\n').slice(1);
  const severityAt = lines.findIndex((l) => SEVERITY_LINE.test(l));
  if (severityAt >= 0) lines.splice(severityAt, 1);
  return lines.join('\n').trim();
}

function safeParse(analyzer: string, variant: string): RuleDef[] {
  try {
    return parseRules(loadBuiltinRuleset(analyzer, variant));
  } catch {
    return [];
  }
}

/**
 * Every registered analyzer's built-in rules, once each: base rules with rule_type null, then
 * each variant's own rules with rule_type = the variant.
 */
export function builtinRuleEntries(analyzers: AnalyzerRegistry): BuiltinRuleEntry[] {
  const out: BuiltinRuleEntry[] = [];
  for (const analyzer of analyzers.list()) {
    const variants = listBuiltinRuleVariants(analyzer.name);
    const base = variants.includes(BASE_RULE_VARIANT) ? safeParse(analyzer.name, BASE_RULE_VARIANT) : [];
    const seen = new Set<string>();
    const add = (rule: RuleDef, ruleType: string | null) => {
      if (seen.has(rule.rule_id)) return;
      seen.add(rule.rule_id);
      out.push({
        analyzer: analyzer.name,
        rule_type: ruleType,
        rule_id: rule.rule_id,
        title: rule.title,
        severity: rule.severity,
        description: seedDescription(rule),
      });
    };
    for (const rule of base) add(rule, null);
    for (const variant of variants.filter((v) => v !== BASE_RULE_VARIANT)) {
      for (const rule of safeParse(analyzer.name, variant)) add(rule, variant);
    }
  }
  return out;
}

/** A rule rendered exactly as composeRuleset renders custom rules (headings in the description demoted). */
function renderRule(row: Pick<CustomRuleDoc, 'rule_id' | 'title' | 'severity' | 'description'>): string {
  const composed = composeRuleset('', [{ category: 'x', rules: [row] }]);
  return composed.slice(composed.indexOf('\n\n') + 2).replace(/\n+$/, '');
}

/**
 * Applies an org's seeded rows to a built-in ruleset text: a disabled row removes its rule;
 * a row whose title, severity or description differs from the built-in replaces the rule's
 * section in place; an unchanged row (or none) leaves the text byte-identical, so the digest
 * only changes when the org really changed a rule.
 */
export function applySeedOverrides(builtin: string, seeded: readonly CustomRuleDoc[]): string {
  if (seeded.length === 0) return builtin;
  const rows = new Map(seeded.map((r) => [r.rule_id, r]));
  let text = builtin;
  for (const rule of parseRules(builtin)) {
    const row = rows.get(rule.rule_id);
    if (!row) continue;
    const at = text.indexOf(rule.body);
    if (at < 0) continue;
    if (!row.enabled) {
      const left = text.slice(0, at).replace(/\n+$/, '\n');
      const right = text.slice(at + rule.body.length).replace(/^\n+/, '\n');
      text = left + right;
      continue;
    }
    const unchanged = row.title === rule.title && row.severity === rule.severity && row.description === seedDescription(rule);
    if (unchanged) continue;
    text = text.slice(0, at) + renderRule(row) + text.slice(at + rule.body.length);
  }
  return text.replace(/\s+$/, '\n');
}
