import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEVERITY_ORDER, type Severity } from '../core/finding-model';
import { NotFoundError, ValidationError } from '../core/errors';

/**
 * Built-in Markdown rulesets and their composition with an org's custom rules
 * (analysis-api.md "Analyzers and built-in rulesets", "Custom rules", "Stored resource").
 *
 * Layout: `resources/rules/<analyzer>/<variant>.md`. `default.md` holds an analyzer's base
 * rules; every other file holds only the rules of its variant, and the variant's ruleset is
 * `default.md` followed by the variant file. Keeping shared rules in one place means a fix to a
 * general rule reaches every variant, and rule ids stay unique across files.
 *
 * The text returned here is the stable prefix of every LLM prompt (llm/types.ts `system`), so it
 * must be byte-identical for identical inputs: files are normalised once (BOM, CRLF, trailing
 * whitespace) and custom rules are emitted in a sorted order.
 */

/** One rule of a Markdown ruleset. */
export interface RuleDef {
  /** Stable id the model reports in `finding.rule_id`, e.g. `TF-AWS-S3-PUBLIC-ACL`. */
  readonly rule_id: string;
  readonly title: string;
  readonly severity: Severity;
  /** Resource types or input kinds from the `Applies to:` line; `*` = any; empty when the rule names none (custom rules). */
  readonly applies_to: string[];
  /**
   * Which Terraform inputs the rule can match (`Inputs:` line): `configuration` = only `.tf`
   * blocks (provisioners, variables), never sent with plan units; `plan`; `any` (default).
   */
  readonly inputs: 'configuration' | 'plan' | 'any';
  /**
   * Plan actions the rule is about (`Actions: destroy, replace`; `replace` = a replacing update):
   * a plan unit with another action is not sent the rule. Empty = every action. Configuration
   * (`.tf` diff) units always get the rule: a diff shows a rename as destroy + create.
   */
  readonly actions: readonly string[];
  /** Deterministic condition (`Check (CEL): <expr>`), a CEL expression over the unit's values; null when none. */
  readonly check: string | null;
  /** The rule's whole Markdown section: its `## ` heading line up to the next level-1 or level-2 heading, trailing whitespace trimmed. */
  readonly body: string;
}

/** A custom rule as it is rendered into a ruleset (a subset of the spec's custom-rule record). */
export interface CustomRuleText {
  readonly rule_id: string;
  readonly title: string;
  readonly severity: Severity;
  /** Markdown detection guidance for the LLM. */
  readonly description: string;
}

/** The enabled custom rules of one category. */
export interface CustomRuleSection {
  readonly category: string;
  readonly rules: readonly CustomRuleText[];
}

/** The variant whose file every other variant of an analyzer builds on. */
export const BASE_RULE_VARIANT = 'default';

/** Analyzer and variant names double as path segments: no dots, no separators. */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const RULE_HEADING_RE = /^##[ \t]+([^\s:]+):[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const ATX_HEADING_RE = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
const FENCE_OPEN_RE = /^ {0,3}(`{3,}|~{3,})/;
const META_RE =
  /^[ \t]*(?:[-*][ \t]+)?(?:\*\*|__)?(severity|applies[ -]to|inputs|actions|check \(cel\))[ \t]*(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*(.*?)[ \t]*$/i;

const fileCache = new Map<string, string>();
const dirCache = new Map<string, readonly string[]>();

/**
 * The rules directory: `$PLANWARDEN_RESOURCES_DIR/rules` when that variable is set (read on every
 * call, resolved against the working directory), else `<repo>/resources/rules`.
 */
function rulesRoot(): string {
  const override = process.env.PLANWARDEN_RESOURCES_DIR?.trim();
  if (override) return path.resolve(override, 'rules');
  return fileURLToPath(new URL('../../../resources/rules/', import.meta.url));
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

/** BOM and CRLF removed, trailing whitespace trimmed, exactly one final newline ('' stays ''). */
function normalizeMarkdown(text: string): string {
  const body = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .trimEnd();
  return body === '' ? '' : `${body}\n`;
}

function readRuleFile(file: string): string | undefined {
  const cached = fileCache.get(file);
  if (cached !== undefined) return cached;
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  const text = normalizeMarkdown(raw);
  fileCache.set(file, text);
  return text;
}

function noRules(analyzer: string, variant: string): NotFoundError {
  const show = (s: string) => JSON.stringify(s.slice(0, 64));
  return new NotFoundError(`No built-in rules for analyzer ${show(analyzer)} and type ${show(variant)}`);
}

/**
 * The built-in Markdown ruleset of `analyzer` for rule variant `variant` (the `type` query of
 * `GET /{analyzer_name}/rules`). `variant = "default"` gives `default.md` alone; any other
 * variant gives `default.md`, a blank line, then `<variant>.md` (or the variant file alone when
 * the analyzer has no `default.md`). Text is normalised to LF with one final newline and is
 * byte-stable across calls. File reads are cached for the life of the process.
 * Throws NotFoundError (404) when the analyzer has no rule file for that variant, or either name
 * is not a plain name (letters, digits, `-`, `_`).
 */
export function loadBuiltinRuleset(analyzer: string, variant: string): string {
  if (!NAME_RE.test(analyzer) || !NAME_RE.test(variant)) throw noRules(analyzer, variant);
  const dir = path.join(rulesRoot(), analyzer);
  const base = readRuleFile(path.join(dir, `${BASE_RULE_VARIANT}.md`));
  if (variant === BASE_RULE_VARIANT) {
    if (base === undefined) throw noRules(analyzer, variant);
    return base;
  }
  const own = readRuleFile(path.join(dir, `${variant}.md`));
  if (own === undefined) throw noRules(analyzer, variant);
  if (base === undefined || base === '') return own;
  return own === '' ? base : `${base}\n${own}`;
}

/**
 * The rule variants `analyzer` ships: the names of its `resources/rules/<analyzer>/*.md` files
 * without extension, `default` first and the rest in code-unit order. Empty when the analyzer
 * has no rules directory (the spec's 501 "analyzer has no rules"). Listings are cached.
 */
export function listBuiltinRuleVariants(analyzer: string): string[] {
  if (!NAME_RE.test(analyzer)) return [];
  const dir = path.join(rulesRoot(), analyzer);
  let variants = dirCache.get(dir);
  if (variants === undefined) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    variants = entries
      .filter((name) => name.endsWith('.md'))
      .map((name) => name.slice(0, -'.md'.length))
      .filter((name) => NAME_RE.test(name))
      .sort((a, b) => (a === b ? 0 : a === BASE_RULE_VARIANT ? -1 : b === BASE_RULE_VARIANT ? 1 : a < b ? -1 : 1));
    dirCache.set(dir, variants);
  }
  return [...variants];
}

/** Forgets cached rule files and directory listings (tests; a hot reload of resources). */
export function clearRulesetCache(): void {
  fileCache.clear();
  dirCache.clear();
}

function parseSeverity(ruleId: string, raw: string | undefined): Severity {
  const value =
    (raw ?? '')
      .replace(/[`*_]/g, '')
      .trim()
      .split(/[\s(,;]/)[0]
      ?.toUpperCase() ?? '';
  const severity = SEVERITY_ORDER.find((s) => s === value);
  if (!severity) {
    throw new ValidationError(`Rule ${ruleId}: missing or invalid severity ${JSON.stringify(raw ?? null)}`);
  }
  return severity;
}

function parseAppliesTo(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((part) => part.replace(/`/g, '').trim())
    .filter((part) => part !== '');
}

/** A run of lines of a ruleset: one rule's section, or text between rules (titles, introductions). */
export interface RulesetBlock {
  /** The rule this block is the section of; null for other text. */
  readonly rule: { readonly id: string; readonly title: string; readonly meta: Readonly<Partial<Record<RuleMetaKey, string>>> } | null;
  /** True when the block starts with a level-1 heading (a new file or custom-rule category). */
  readonly opensSection: boolean;
  readonly lines: readonly string[];
}

type RuleMetaKey = 'severity' | 'appliesTo' | 'inputs' | 'actions' | 'check';

function metaKey(raw: string): RuleMetaKey {
  const key = raw.toLowerCase().replace(/[ -]/g, '');
  if (key === 'severity') return 'severity';
  if (key === 'appliesto') return 'appliesTo';
  if (key === 'inputs') return 'inputs';
  if (key === 'actions') return 'actions';
  return 'check';
}

/**
 * Splits a Markdown ruleset into blocks, in document order, losing nothing (joining every
 * block's lines with LF gives the input back, CRLF normalised). A rule block starts at a level-2
 * heading `## <RULE_ID>: <Title>`; any other level-1/2 heading starts a text block; headings
 * inside fenced code blocks are content. A rule's metadata lines (`Severity:`, `Applies to:`,
 * `Inputs:`, `Check (CEL):`, the first of each) are read into `rule.meta`.
 */
export function rulesetBlocks(markdown: string): RulesetBlock[] {
  const blocks: { rule: { id: string; title: string; meta: Partial<Record<RuleMetaKey, string>> } | null; opensSection: boolean; lines: string[] }[] = [];
  let current: (typeof blocks)[number] = { rule: null, opensSection: false, lines: [] };
  blocks.push(current);
  let fence: { char: string; len: number } | null = null;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (fence) {
      const close = FENCE_OPEN_RE.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.len && line.trim() === close[1]) fence = null;
      current.lines.push(line);
      continue;
    }
    const open = FENCE_OPEN_RE.exec(line);
    if (open) {
      fence = { char: open[1][0], len: open[1].length };
      current.lines.push(line);
      continue;
    }
    const heading = ATX_HEADING_RE.exec(line);
    if (heading && heading[1].length <= 2) {
      const rule = heading[1].length === 2 ? RULE_HEADING_RE.exec(line.trim()) : null;
      current = { rule: rule ? { id: rule[1], title: rule[2], meta: {} } : null, opensSection: heading[1].length === 1, lines: [line] };
      blocks.push(current);
      continue;
    }
    current.lines.push(line);
    const meta = current.rule ? META_RE.exec(line) : null;
    if (meta && current.rule) current.rule.meta[metaKey(meta[1])] ??= meta[2];
  }
  return blocks.filter((b, i) => i > 0 || b.lines.some((l) => l !== ''));
}

/**
 * Splits a Markdown ruleset into its rules. A rule is a level-2 heading `## <RULE_ID>: <Title>`
 * (the id holds no whitespace or colon) followed by its section, which carries a
 * `Severity: <CRITICAL|HIGH|MEDIUM|LOW|INFO>` line and optionally `Applies to: a, b, c` (either
 * may be bold, `**Severity:**`), `Inputs: configuration|plan`, `Actions: destroy|replace|create|update|no-op` and
 * `Check (CEL): <expression>`.
 * Headings inside fenced code blocks (HCL `#` comments) are ignored; other level-1/2 headings
 * end a rule and are not rules. Rules come back in document order; duplicate ids are returned as
 * they are.
 * Throws ValidationError (422) when a rule heading has no valid severity.
 */
export function parseRules(markdown: string): RuleDef[] {
  return rulesFromBlocks(rulesetBlocks(markdown));
}

/** parseRules over blocks already split (rulesetBlocks); throws as parseRules does. */
export function rulesFromBlocks(blocks: readonly RulesetBlock[]): RuleDef[] {
  return blocks.flatMap((block) => {
    if (!block.rule) return [];
    const { id, title, meta } = block.rule;
    const inputs = (meta.inputs ?? '').replace(/[`*_]/g, '').trim().toLowerCase();
    return [
      {
        rule_id: id,
        title,
        severity: parseSeverity(id, meta.severity),
        applies_to: parseAppliesTo(meta.appliesTo),
        inputs: inputs === 'configuration' || inputs === 'plan' ? inputs : 'any',
        actions: parseAppliesTo(meta.actions).map((a) => a.toLowerCase()),
        check: parseCheck(meta.check),
        body: block.lines.join('\n').trimEnd(),
      } satisfies RuleDef,
    ];
  });
}

/** The CEL expression of a `Check (CEL): <expr>` line (backticks around it removed); null when none. */
function parseCheck(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const text = raw
    .trim()
    .replace(/^`(.*)`$/, '$1')
    .trim();
  return text === '' ? null : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Pushes every ATX heading outside code fences down two levels (capped at 6), so a custom
 * description cannot open a new rule (`## `) or category (`# `) in the composed ruleset.
 */
function demoteHeadings(markdown: string): string {
  let fence: { char: string; len: number } | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = FENCE_OPEN_RE.exec(line);
      if (fence) {
        if (marker && marker[1][0] === fence.char && marker[1].length >= fence.len && line.trim() === marker[1]) fence = null;
        return line;
      }
      if (marker) {
        fence = { char: marker[1][0], len: marker[1].length };
        return line;
      }
      const heading = ATX_HEADING_RE.exec(line);
      if (!heading) return line;
      const level = Math.min(6, heading[1].length + 2);
      return line.replace(heading[1], '#'.repeat(level));
    })
    .join('\n');
}

function renderCustomRule(rule: CustomRuleText): string {
  const head = `## ${oneLine(rule.rule_id)}: ${oneLine(rule.title)}\nSeverity: ${rule.severity}`;
  const description = demoteHeadings(normalizeMarkdown(rule.description)).trim();
  return description === '' ? head : `${head}\n\n${description}`;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The ruleset served by `GET /{analyzer_name}/rules` and used for analysis: the built-in text
 * (normalised as by loadBuiltinRuleset), then the enabled custom rules grouped under one
 * `# Custom rules: <category>` heading per category. Sections with the same category are merged;
 * categories and, within each, rules (by rule_id, then title) are sorted by code unit, so the
 * output does not depend on the order the store returns rows in. Each custom rule renders as
 * `## <rule_id>: <title>`, `Severity: <severity>`, then its description with headings demoted
 * two levels; parseRules reads them back (with empty applies_to). With no custom rules the
 * result is the normalised built-in text. Does not deduplicate rule ids.
 */
export function composeRuleset(builtin: string, customSections: readonly CustomRuleSection[]): string {
  const byCategory = new Map<string, CustomRuleText[]>();
  for (const section of customSections) {
    if (section.rules.length === 0) continue;
    const category = oneLine(section.category) || 'uncategorized';
    const rules = byCategory.get(category) ?? [];
    rules.push(...section.rules);
    byCategory.set(category, rules);
  }
  const base = normalizeMarkdown(builtin);
  if (byCategory.size === 0) return base;

  const parts = [...byCategory.keys()].sort(byCodeUnit).map((category) => {
    const rules = [...(byCategory.get(category) ?? [])].sort((a, b) => byCodeUnit(a.rule_id, b.rule_id) || byCodeUnit(a.title, b.title));
    return [`# Custom rules: ${category}`, ...rules.map(renderCustomRule)].join('\n\n');
  });
  const custom = `${parts.join('\n\n')}\n`;
  return base === '' ? custom : `${base}\n${custom}`;
}

/** Hex SHA-256 of the exact UTF-8 bytes of a ruleset text (identifies the rules a unit was analysed with). */
export function rulesetDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
