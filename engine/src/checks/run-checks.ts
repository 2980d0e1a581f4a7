/**
 * Deterministic checks (docs/decisions.md "Checks only"): a rule may carry `Check (CEL): <expression>`, a Common
 * Expression Language condition (cel-spec; evaluated by @marcbachmann/cel-js, no code of ours)
 * over the unit. A match is a finding with HIGH confidence and its evidence lines, made without a
 * model call; the same matches are stated to the model as known facts.
 *
 * Variables an expression sees:
 * - `values`: the unit's planned values (`after` of a plan-JSON change, metadata.values), with
 *   redacted values as the string "(sensitive value)" and unknown ones as "(known after apply)";
 *   absent for units that carry none (plan text, configuration diffs): checks naming `values`
 *   are then skipped;
 * - `secrets`: the plain-text secrets masked at ingest (metadata.plaintext_secrets), each
 *   `{attribute, kind}`;
 * - `unit`: `{type, name, action, replace}`;
 * - `companions`: the resources of the same plan that configure the unit (metadata.context,
 *   analyzers/terraform/plan-context.ts), each `{address, type, action, values}` with `values`
 *   masked like the unit's own (null for a companion being destroyed): for example
 *   `unit.action != 'destroy' && !companions.exists(c, c.type == 'aws_s3_bucket_public_access_block')`.
 *   Always a list (empty when none). Units whose companions are unknown (plan text, configuration
 *   diffs: no metadata.context) skip checks naming `companions`, as they skip those naming
 *   `values`: "no companion" is only known for a whole plan;
 * - `template`: for a CloudFormation resource, the template entries it references
 *   (metadata.template, analyzers/cloudformation/template-context.ts): `{parameters, conditions,
 *   mappings}`, each name → its entry as plain data (a NoEcho default masked), for example
 *   `template.parameters[r.CidrIp.Ref].Default == "0.0.0.0/0"`; empty maps for every other unit;
 * - `lines`: the unit body's lines, trimmed (for text units: `lines.exists(l, l.matches("..."))`;
 *   `matches` takes an RE2 regular expression, as cel-spec defines it, and runs in linear time
 *   whoever wrote the rule: cel-regex.ts).
 * An expression that fails to evaluate (a missing key, a type mismatch) does not match. A check
 * whose necessary condition fails for the unit (cel-prefilter.ts: no line holds a literal its
 * `lines.exists(… matches …)` needs) is not evaluated: it could not have matched.
 */
import type { Finding } from '../core/payload';
import type { AnalysisUnit } from '../core/unit';
import type { RuleDef } from '../rules/ruleset';
import { celPattern, parseCel, type CelProgram } from './cel-regex';
import { checkPrefilter, type CheckPrefilter } from './cel-prefilter';
import { checkFindingText, withoutCompanionCalls } from './finding-text';
import { memoByText } from './memo';

/** Parses (once, cached) a CEL expression; returns the Error for an expression that does not parse. */
export const compileCheck: (expression: string) => CelProgram | Error = memoByText((expression) => {
  try {
    return parseCel(expression);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
});

/** A parsed check with the cheap condition it needs to be true (cel-prefilter.ts); null when none is known. */
interface CompiledCheck {
  readonly program: CelProgram;
  readonly prefilter: CheckPrefilter | null;
}

/** compileCheck with its prefilter, once per check text. */
const compiledCheck = memoByText((expression): CompiledCheck | Error => {
  const program = compileCheck(expression);
  return program instanceof Error ? program : { program, prefilter: checkPrefilter(program.ast) };
});

/** Tests of check texts, once per text: the same rules run on every unit. */
const readsValues = memoByText((check) => /(?<![.\w])values\b/.test(check));
const readsCompanions = memoByText((check) => /\bcompanions\b/.test(check));

/** One rule whose check matched the unit. */
export interface CheckMatch {
  readonly rule: RuleDef;
  readonly evidence: readonly string[];
}

/**
 * Evaluates the `check` of every rule in `rules` against `unit`; returns the matches in rule
 * order. Never throws: a check that does not parse or evaluate is a non-match.
 */
export function runChecks(rules: readonly RuleDef[], unit: AnalysisUnit): CheckMatch[] {
  const values = unit.metadata.values;
  const secrets = plaintextSecrets(unit);
  const known = Array.isArray(unit.metadata.context);
  const context = checkVariables(unit);
  const matches: CheckMatch[] = [];
  let body: BodyLines | null = null;
  for (const rule of rules) {
    if (!rule.check) continue;
    if (values === undefined && readsValues(rule.check)) continue;
    if (!known && readsCompanions(rule.check)) continue;
    const check = compiledCheck(rule.check);
    if (check instanceof Error) continue;
    if (check.prefilter && !check.prefilter(context)) continue; // cannot be true: not evaluated
    let result: unknown;
    try {
      result = check.program(context);
    } catch {
      continue;
    }
    if (result !== true) continue;
    body ??= bodyLines(context.lines);
    matches.push({
      rule,
      evidence: evidenceFor(
        rule.check,
        body,
        secrets.map((s) => s.line ?? ''),
      ),
    });
  }
  return matches;
}

/** A unit body's non-empty trimmed lines with the key each assigns, read once per unit for all its matches. */
interface BodyLines {
  readonly lines: readonly string[];
  /** The attribute a line assigns (`+ publicly_accessible = true` → publicly_accessible), else undefined. */
  readonly keys: readonly (string | undefined)[];
  readonly set: ReadonlySet<string>;
}

function bodyLines(trimmed: readonly string[]): BodyLines {
  const lines = trimmed.filter((l) => l !== '');
  return { lines, keys: lines.map((line) => /^(?:[+~-]\s+)?"?([A-Za-z0-9_.-]+)"?\s*[=:]/.exec(line)?.[1]), set: new Set(lines) };
}

/** metadata.plaintext_secrets of `unit` (empty when absent). */
function plaintextSecrets(unit: AnalysisUnit): { attribute?: string; kind?: string; line?: string }[] {
  const secrets = unit.metadata.plaintext_secrets;
  return Array.isArray(secrets) ? (secrets as { attribute?: string; kind?: string; line?: string }[]) : [];
}

/**
 * The variables a check sees for `unit` (see the module comment): `values`, `companions`,
 * `secrets`, `unit`, `template` and `lines`.
 */
export function checkVariables(unit: AnalysisUnit) {
  const known = Array.isArray(unit.metadata.context) ? (unit.metadata.context as unknown[]) : [];
  return {
    values: unit.metadata.values ?? null,
    companions: known.map(companionVariable),
    secrets: plaintextSecrets(unit).map((s) => ({ attribute: s.attribute ?? '', kind: s.kind ?? '' })),
    unit: { type: unit.type, name: unit.name, action: unit.action, replace: unit.metadata.replace === true },
    template: templateVariable(unit.metadata.template),
    lines: unit.body.split('\n').map((l) => l.trim()),
  };
}

/** One `companions` entry: `{address, type, action, values}` (strings, values null when absent). */
function companionVariable(entry: unknown): { address: string; type: string; action: string; values: unknown } {
  const c = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { address: text(c.address), type: text(c.type), action: text(c.action), values: c.values ?? null };
}

/** `{parameters, conditions, mappings}` of metadata.template, each a map (empty when absent or malformed). */
function templateVariable(entry: unknown): { parameters: unknown; conditions: unknown; mappings: unknown } {
  const t = isMap(entry) ? entry : {};
  return {
    parameters: isMap(t.parameters) ? t.parameters : {},
    conditions: isMap(t.conditions) ? t.conditions : {},
    mappings: isMap(t.mappings) ? t.mappings : {},
  };
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const NOT_FIELDS = new Set([
  'template',
  'parameters',
  'conditions',
  'mappings',
  'values',
  'companions',
  'secrets',
  'unit',
  'exists',
  'all',
  'exists_one',
  'map',
  'filter',
  'size',
  'has',
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'orValue',
]);

/**
 * Evidence for a match: the body lines that assign a field the expression names
 * (`+ publicly_accessible = true` for `values.publicly_accessible`), and for checks over
 * `secrets` the masked lines recorded at ingest; for a check over `companions` that names no
 * body field, the unit's `resource "..." "..."` line. Trimmed, de-duplicated, in body order.
 */
function evidenceFor(check: string, body: BodyLines, secretLines: readonly string[]): string[] {
  const { fields, secrets, patterns, companions } = evidencePlan(check);
  const { lines, keys } = body;
  const picked = lines.filter((_, i) => {
    const key = keys[i];
    return key !== undefined && fields.has(key);
  });
  if (secrets) picked.push(...secretLines.map((l) => l.trim()).filter((l) => l !== '' && body.set.has(l)));
  for (const pattern of patterns) picked.push(...lines.filter((l) => pattern.test(l)));
  // A missing or weakened companion has no line of its own: the unit's resource line stands for it.
  if (picked.length === 0 && companions) picked.push(...lines.filter((l) => RESOURCE_LINE_RE.test(l)).slice(0, 1));
  const set = new Set(picked);
  const kept = new Set<string>();
  return lines.filter((l) => {
    if (!set.has(l) || kept.has(l)) return false;
    kept.add(l);
    return true;
  });
}

/** What evidenceFor looks for in a unit's body, read from the check's text alone. */
interface EvidencePlan {
  /** Body keys that the expression names as fields. */
  readonly fields: ReadonlySet<string>;
  /** The expression reads `secrets`: the masked lines recorded at ingest are evidence. */
  readonly secrets: boolean;
  /** Its `.matches(...)` patterns, as line tests. */
  readonly patterns: readonly { test(line: string): boolean }[];
  /** The check reads `companions`. */
  readonly companions: boolean;
}

/** The evidence plan of a check, made once per check text. */
const evidencePlan = memoByText((check): EvidencePlan => {
  // Fields named inside companions.<macro>(...) are the companions', and unit.<field> the unit
  // record's: neither names a line of the body.
  const expression = withoutCompanionCalls(check).replace(/\bunit\s*\.\s*\w+/g, '');
  const named = [...expression.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()/g)].map((m) => m[1]);
  const quoted = [...expression.matchAll(/"([a-z_][a-z0-9_]*)"/g)].map((m) => m[1]); // keys read as values[k]
  return {
    fields: new Set([...named, ...quoted].filter((f) => !NOT_FIELDS.has(f))),
    secrets: /\bsecrets\b/.test(expression),
    patterns: matchPatterns(expression),
    companions: /\bcompanions\b/.test(check),
  };
});

const RESOURCE_LINE_RE = /^(?:[+~-]|-\/\+|\+\/-)?\s*(?:resource|data) "/;

/**
 * The patterns of `.matches("...")` calls in an expression (CEL string literals, JSON-compatible
 * escapes) as line tests, on the same linear-time engine as the check (cel-regex.ts); a pattern
 * that does not compile tests nothing.
 */
function matchPatterns(expression: string): { test(line: string): boolean }[] {
  return [...expression.matchAll(/\.matches\(\s*("(?:[^"\\]|\\.)*")\s*\)/g)].flatMap((m) => {
    try {
      const matcher = celPattern(JSON.parse(m[1]) as string);
      return matcher ? [matcher] : [];
    } catch {
      return [];
    }
  });
}

/** A deterministic finding for a match, its text drawn from the rule (finding-text.ts). */
export function checkFinding(match: CheckMatch, unit: AnalysisUnit): Finding {
  return checkFindingText(match.rule, unit, match.evidence);
}

/** The matches as known facts for the prompt (prompt.ts `facts`): one line per rule; '' when none. */
export function factsText(matches: readonly CheckMatch[]): string {
  return matches
    .map(
      (m) =>
        `- ${m.rule.rule_id} (${m.rule.title}): deterministic check \`${m.rule.check}\` matched${m.evidence.length > 0 ? `; evidence: ${m.evidence.map((e) => JSON.stringify(e)).join(', ')}` : ''}`,
    )
    .join('\n');
}
