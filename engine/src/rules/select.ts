/**
 * Per-unit rule selection (send only the rules that apply; docs/decisions.md "Rule selection"): of an org's composed
 * ruleset, the rules whose `Applies to:` names the unit's type (or an alias of it), the wildcard
 * rules (`*`, and custom rules, which name no type), minus configuration-only rules
 * (`Inputs: configuration`) and rules about other plan actions (`Actions: destroy`) for units
 * taken from a plan. The selected text keeps the document
 * order and the titles/introductions of the sections that still hold a rule, so it depends only
 * on (ruleset, selected rule ids): identical for every unit of the same type, which keeps the
 * prompt prefix byte-stable for provider caching.
 */
import { parseRules, rulesetBlocks, type RuleDef } from './ruleset';

/**
 * Resource types that are one resource under two names (Terraform's `aws_alb*` are aliases of
 * `aws_lb*`; `aws_s3_bucket_object` was renamed `aws_s3_object` and `aws_elasticsearch_*`
 * `aws_opensearch_*` in AWS provider 4; azurerm's legacy `azurerm_sql_*` were renamed
 * `azurerm_mssql_*`). A rule naming either name applies to both.
 */
const ALIAS_GROUPS: readonly (readonly string[])[] = [
  ['aws_lb', 'aws_alb'],
  ['aws_lb_listener', 'aws_alb_listener'],
  ['aws_lb_listener_rule', 'aws_alb_listener_rule'],
  ['aws_lb_target_group', 'aws_alb_target_group'],
  ['aws_lb_target_group_attachment', 'aws_alb_target_group_attachment'],
  ['aws_s3_object', 'aws_s3_bucket_object'],
  ['aws_opensearch_domain', 'aws_elasticsearch_domain'],
  ['aws_opensearch_domain_policy', 'aws_elasticsearch_domain_policy'],
  ['azurerm_mssql_server', 'azurerm_sql_server'],
  ['azurerm_mssql_database', 'azurerm_sql_database'],
  ['azurerm_mssql_firewall_rule', 'azurerm_sql_firewall_rule'],
  ['azurerm_mssql_virtual_network_rule', 'azurerm_sql_virtual_network_rule'],
];
const ALIASES = new Map<string, readonly string[]>(ALIAS_GROUPS.flatMap((group) => group.map((t) => [t, group] as const)));

/** Every name of a resource type: itself and its aliases. */
export function typeAliases(type: string): readonly string[] {
  return ALIASES.get(type) ?? [type];
}

/** Unit sources that are plan output (Terraform plan JSON / plan text): configuration-only rules never go with them. */
const PLAN_SOURCES = new Set(['plan-json', 'plan-text']);

/**
 * Unit types that can hold anything (a whole file or document seen only as text): when the
 * ruleset names no such type, the whole ruleset goes with them, as before selection. Never a
 * plan unit: those are resources, whatever their type is called (`local_file`).
 */
const CONTAINER_TYPE_RE = /(^tfvars$|_file$|_fragment$|_document$|_change$)/;

/** The plan action a rule's `Actions:` line names: `replace` for a replacing update, else the unit action. */
export function planAction(unit: SelectableUnit): string {
  return unit.action === 'update' && unit.metadata.replace === true ? 'replace' : unit.action;
}

export interface SelectedRules {
  /** The Markdown actually sent: selected rules and the headings/introductions above them. */
  readonly text: string;
  /** Ids of the selected rules, in document order. */
  readonly ruleIds: readonly string[];
  /** The selected rules, parsed. */
  readonly rules: readonly RuleDef[];
}

/** The unit fields selection reads. */
export interface SelectableUnit {
  readonly type: string;
  /** create, update, destroy or no-op (a replace is `update` with metadata.replace true). */
  readonly action: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * The part of `ruleset` that applies to `unit` (see module comment). Falls back to every rule
 * when the ruleset names no resource types at all (prose `Applies to:` lines, as the generic
 * analyzer's) or the unit is a container type the ruleset does not name. Pure and byte-stable.
 * Throws ValidationError like parseRules for a rule without a valid severity.
 */
export function selectRules(ruleset: string, unit: SelectableUnit): SelectedRules {
  const { blocks, byId, named, typed } = parsedRuleset(ruleset);
  const names = new Set(typeAliases(unit.type).map((t) => t.toLowerCase()));
  const fromPlan = PLAN_SOURCES.has(String(unit.metadata.source ?? ''));
  const everything = !typed || (!fromPlan && CONTAINER_TYPE_RE.test(unit.type) && ![...names].some((n) => named.has(n)));
  const keep = (rule: RuleDef): boolean => {
    if (fromPlan && rule.inputs === 'configuration') return false;
    if (fromPlan && rule.actions.length > 0 && !rule.actions.includes(planAction(unit))) return false;
    if (everything || rule.applies_to.length === 0) return true;
    return rule.applies_to.some((a) => a === '*' || names.has(a.toLowerCase()));
  };

  const sections: { text: string[]; kept: string[] }[] = [];
  const selected: RuleDef[] = [];
  for (const block of blocks) {
    if (block.opensSection || sections.length === 0) sections.push({ text: [], kept: [] });
    const section = sections[sections.length - 1];
    const chunk = block.lines.join('\n').trimEnd();
    if (!block.rule) {
      if (chunk !== '') section.text.push(chunk);
      continue;
    }
    const rule = byId.get(block.rule.id);
    if (!rule || !keep(rule)) continue;
    section.text.push(chunk);
    section.kept.push(rule.rule_id);
    selected.push(rule);
  }
  const text = sections
    .filter((s) => s.kept.length > 0)
    .map((s) => s.text.join('\n\n'))
    .join('\n\n');
  return { text: text === '' ? '' : `${text}\n`, ruleIds: selected.map((r) => r.rule_id), rules: selected };
}

/** What selection reads of a ruleset, whatever the unit. */
interface ParsedRuleset {
  readonly blocks: ReturnType<typeof rulesetBlocks>;
  readonly byId: ReadonlyMap<string, RuleDef>;
  /** Every `Applies to:` entry, lower-cased. */
  readonly named: ReadonlySet<string>;
  /** True when those entries are type lists (single tokens), not prose. */
  readonly typed: boolean;
}

const parsedCache = new Map<string, ParsedRuleset>();
const PARSED_CACHE_MAX = 16;

/**
 * The ruleset parsed once per text (a run selects for each new unit type, and parsing
 * 98 rules each time cost ~1 ms). Throws like parseRules; a failure is not cached.
 */
function parsedRuleset(ruleset: string): ParsedRuleset {
  const cached = parsedCache.get(ruleset);
  if (cached) return cached;
  const rules = parseRules(ruleset);
  const named = new Set(rules.flatMap((r) => r.applies_to.map((a) => a.toLowerCase())));
  const parsed: ParsedRuleset = {
    blocks: rulesetBlocks(ruleset),
    byId: new Map(rules.map((r) => [r.rule_id, r])),
    named,
    // Type lists are single tokens (`aws_s3_bucket`, `Deployment`, `AWS::S3::Bucket`); prose ("CI workflows") is not.
    typed: named.size > 0 && [...named].every((a) => /^[\w:.*-]+$/.test(a)),
  };
  if (parsedCache.size >= PARSED_CACHE_MAX) parsedCache.delete(parsedCache.keys().next().value!);
  parsedCache.set(ruleset, parsed);
  return parsed;
}
