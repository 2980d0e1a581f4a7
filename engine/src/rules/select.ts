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
import { rulesetBlocks, rulesFromBlocks, type RuleDef } from './ruleset';

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
  const parsed = parsedRuleset(ruleset);
  const keep = keeper(parsed, unit);
  const sections: { text: string[]; kept: number }[] = [];
  const selected: RuleDef[] = [];
  for (const block of parsed.blocks) {
    if (block.opensSection || sections.length === 0) sections.push({ text: [], kept: 0 });
    const section = sections[sections.length - 1];
    if (block.rule === null) {
      if (block.chunk !== '') section.text.push(block.chunk);
      continue;
    }
    if (!keep(block.rule)) continue;
    section.text.push(block.chunk);
    section.kept += 1;
    selected.push(block.rule.rule);
  }
  const text = sections
    .filter((s) => s.kept > 0)
    .map((s) => s.text.join('\n\n'))
    .join('\n\n');
  return { text: text === '' ? '' : `${text}\n`, ruleIds: selected.map((r) => r.rule_id), rules: selected };
}

/**
 * selectRules(ruleset, unit).rules without the text (what the checks need), once per ruleset and
 * kind of unit: the selection depends only on the unit's type, whether it comes from a plan, and
 * its plan action. Callers must not change the result. Throws like selectRules.
 */
export function selectRuleDefs(ruleset: string, unit: SelectableUnit): readonly RuleDef[] {
  const parsed = parsedRuleset(ruleset);
  const key = `${unit.type}\u0000${PLAN_SOURCES.has(String(unit.metadata.source ?? ''))}\u0000${planAction(unit)}`;
  let rules = parsed.selections.get(key);
  if (!rules) {
    const keep = keeper(parsed, unit);
    // Only the blocks that can name the unit are looked at (not every rule's `Applies to:` list
    // for each kind of unit), in document order.
    const positions = keep.everything ? null : candidatePositions(parsed, keep.names);
    const blocks = positions === null ? parsed.blocks : positions.map((i) => parsed.blocks[i]);
    rules = blocks.flatMap((b) => (b.rule !== null && keep(b.rule) ? [b.rule.rule] : []));
    parsed.selections.set(key, rules);
  }
  return rules;
}

/** Positions in `parsed.blocks` of the wildcard rules and of the rules naming one of `names`, ascending. */
function candidatePositions(parsed: ParsedRuleset, names: ReadonlySet<string>): number[] {
  const positions = new Set(parsed.wildcards);
  for (const name of names) for (const i of parsed.byName.get(name) ?? []) positions.add(i);
  return [...positions].sort((a, b) => a - b);
}

/**
 * Whether a rule of `parsed` goes with `unit` (see the module comment), with the unit's type
 * names (lower-cased, aliases included) and whether every rule's `Applies to:` is ignored.
 */
function keeper(parsed: ParsedRuleset, unit: SelectableUnit): ((block: RuleBlock) => boolean) & { names: ReadonlySet<string>; everything: boolean } {
  const names = new Set(typeAliases(unit.type).map((t) => t.toLowerCase()));
  const fromPlan = PLAN_SOURCES.has(String(unit.metadata.source ?? ''));
  const everything = !parsed.typed || (!fromPlan && CONTAINER_TYPE_RE.test(unit.type) && ![...names].some((n) => parsed.named.has(n)));
  const action = planAction(unit);
  const keep = ({ rule, appliesTo }: RuleBlock) => {
    if (fromPlan && rule.inputs === 'configuration') return false;
    if (fromPlan && rule.actions.length > 0 && !rule.actions.includes(action)) return false;
    if (everything || appliesTo.length === 0) return true;
    return appliesTo.some((a) => a === '*' || names.has(a));
  };
  return Object.assign(keep, { names, everything });
}

/**
 * parseRules(ruleset), parsed once per ruleset text and shared with selection (the same rulesets
 * are selected from and listed in a report's rule help). Callers must not change the result.
 */
export function rulesetRules(ruleset: string): readonly RuleDef[] {
  return parsedRuleset(ruleset).rules;
}

/** A rule of a block, with its `Applies to:` entries lower-cased once. */
interface RuleBlock {
  readonly rule: RuleDef;
  readonly appliesTo: readonly string[];
}

/** What selection reads of a ruleset, whatever the unit: derived once per ruleset text. */
interface ParsedRuleset {
  /** The ruleset's blocks in document order, each with its text as it is sent. */
  readonly blocks: readonly {
    readonly opensSection: boolean;
    /** The block's lines, joined and trimmed at the end. */
    readonly chunk: string;
    /** The rule the block's id names (the last definition of a duplicate id); null for a text block or an unparsed id. */
    readonly rule: RuleBlock | null;
  }[];
  /** Every rule, in document order (parseRules). */
  readonly rules: readonly RuleDef[];
  /** Every `Applies to:` entry, lower-cased. */
  readonly named: ReadonlySet<string>;
  /** True when those entries are type lists (single tokens), not prose. */
  readonly typed: boolean;
  /** Positions in `blocks` of the rules that name no type or `*` (they go with every unit). */
  readonly wildcards: readonly number[];
  /** Positions in `blocks` of the rules naming each lower-cased `Applies to:` entry. */
  readonly byName: ReadonlyMap<string, readonly number[]>;
  /** selectRuleDefs' results by kind of unit. */
  readonly selections: Map<string, readonly RuleDef[]>;
}

const parsedCache = new Map<string, ParsedRuleset>();
const PARSED_CACHE_MAX = 16;

/**
 * The ruleset parsed once per text (a run selects for each new unit type, and parsing
 * 98 rules each time cost ~1 ms; joining every block's lines for each type cost as much again).
 * Throws like parseRules; a failure is not cached.
 */
function parsedRuleset(ruleset: string): ParsedRuleset {
  const cached = parsedCache.get(ruleset);
  if (cached) return cached;
  const blocks = rulesetBlocks(ruleset);
  const rules = rulesFromBlocks(blocks);
  const byId = new Map(rules.map((r) => [r.rule_id, { rule: r, appliesTo: r.applies_to.map((a) => a.toLowerCase()) }]));
  const named = new Set(rules.flatMap((r) => r.applies_to.map((a) => a.toLowerCase())));
  const parsedBlocks = blocks.map((block) => ({
    opensSection: block.opensSection,
    chunk: block.lines.join('\n').trimEnd(),
    rule: block.rule ? (byId.get(block.rule.id) ?? null) : null,
  }));
  const wildcards: number[] = [];
  const byName = new Map<string, number[]>();
  for (const [i, { rule }] of parsedBlocks.entries()) {
    if (rule === null) continue;
    if (rule.appliesTo.length === 0 || rule.appliesTo.includes('*')) wildcards.push(i);
    for (const name of new Set(rule.appliesTo)) {
      const list = byName.get(name);
      if (list) list.push(i);
      else byName.set(name, [i]);
    }
  }
  const parsed: ParsedRuleset = {
    blocks: parsedBlocks,
    rules,
    named,
    // Type lists are single tokens (`aws_s3_bucket`, `Deployment`, `AWS::S3::Bucket`); prose ("CI workflows") is not.
    typed: named.size > 0 && [...named].every((a) => /^[\w:.*-]+$/.test(a)),
    wildcards,
    byName,
    selections: new Map(),
  };
  if (parsedCache.size >= PARSED_CACHE_MAX) parsedCache.delete(parsedCache.keys().next().value!);
  parsedCache.set(ruleset, parsed);
  return parsed;
}
