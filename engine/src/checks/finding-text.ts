/**
 * The text of a deterministic finding, drawn from its rule's own Markdown (docs/decisions.md
 * "Check findings read from the rule"): a rule with a check carries `Risk:` (what the setting
 * exposes and what an attacker or an incident gains) and `Remediation:` (the change that makes
 * the unit compliant) beside its `Look for:` list and its compliant example. The finding names
 * the attribute path and the value the check read (`threat_intel_mode = "Alert"`), so the
 * stored finding reads the same in every face: dashboard, Markdown and HTML reports, SARIF
 * `message`, the pull-request comment.
 */
import type { Finding } from '../core/payload';
import type { AnalysisUnit } from '../core/unit';
import type { RuleDef } from '../rules/ruleset';
import { memoByText } from './memo';

/** The sections of a rule's Markdown that a finding's text is drawn from; null when the rule lacks one. */
export interface RuleSections {
  /** `Risk:` paragraph. */
  readonly risk: string | null;
  /** `Remediation:` paragraph. */
  readonly remediation: string | null;
  /** The first bullet of `Look for:` (the fallback when a rule has no `Risk:`). */
  readonly lookFor: string | null;
  /** The code of the `Compliant example:` fence. */
  readonly compliantExample: string | null;
}

/** The labels whose paragraph `ruleSections` reads, as they start a line of the rule. */
export const FINDING_SECTION_LABELS = ['Risk', 'Remediation'] as const;

const LABEL_RE = /^(?:[-*]\s+)?(?:\*\*|__)?([A-Z][A-Za-z -]{1,40}?)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.*)$/;

/**
 * Reads a rule's Markdown section (RuleDef.body): the `Risk:` and `Remediation:` paragraphs
 * (the label's line and the non-blank lines after it), the first `Look for:` bullet and the
 * `Compliant example:` code. Pure; a missing section is null.
 */
export function ruleSections(body: string): RuleSections {
  const lines = body.split('\n');
  const paragraph = (label: string): string | null => {
    const i = lines.findIndex((l) => LABEL_RE.exec(l.trim())?.[1].toLowerCase() === label.toLowerCase());
    if (i < 0) return null;
    const parts = [LABEL_RE.exec(lines[i].trim())![2]];
    for (let j = i + 1; j < lines.length && lines[j].trim() !== '' && !LABEL_RE.test(lines[j].trim()) && !lines[j].startsWith('```'); j += 1)
      parts.push(lines[j].trim());
    const text = parts.join(' ').trim();
    return text === '' ? null : text;
  };
  const lookAt = lines.findIndex((l) => /^Look for:\s*$/i.test(l.trim()));
  const bullet = lookAt < 0 ? undefined : lines.slice(lookAt + 1).find((l) => /^[-*]\s+/.test(l.trim()));
  const exampleAt = lines.findIndex((l) => /^Compliant example:\s*$/i.test(l.trim()));
  let compliantExample: string | null = null;
  if (exampleAt >= 0 && lines[exampleAt + 1]?.startsWith('```')) {
    const end = lines.findIndex((l, k) => k > exampleAt + 1 && l.startsWith('```'));
    if (end > 0) compliantExample = lines.slice(exampleAt + 2, end).join('\n');
  }
  return {
    risk: paragraph('Risk'),
    remediation: paragraph('Remediation'),
    lookFor: bullet === undefined ? null : bullet.trim().replace(/^[-*]\s+/, ''),
    compliantExample,
  };
}

/** ruleSections once per rule text: a rule applies to many units of a plan. */
const cachedSections = memoByText(ruleSections);

const MACROS = 'exists|all|exists_one|filter|map';
/** A unit's `resource "type" "name" {` line: evidence standing for the whole unit, not a failing setting. */
const RESOURCE_LINE_RE = /^(?:[+~-]|-\/\+|\+\/-)?\s*(?:resource|data) "/;
const MAX_ATTRIBUTES = 4;
const MAX_VALUE_CHARS = 80;
/** A list longer than this is a listing (parameters, rules), not the failing setting: its elements are not named. */
const MAX_LIST_ELEMENTS = 1;

/**
 * The attributes of `values` that `check` reads, with their planned values, as
 * `path = value` (`threat_intel_mode = "Alert"`, `metadata_options[0].http_tokens = "optional"`):
 * `values.a.b` chains, `values["k"]` and quoted keys, and the fields a macro reads of a list's
 * elements (`values.site_config.exists(s, s.minimum_tls_version …)`). Only attributes present in
 * `values` are named; a path another one reads into is named only when it holds a scalar;
 * values are JSON, cut at 80 characters; at most 4. Values are masked as the unit's body is
 * (secrets never appear). Pure.
 */
export function failingAttributes(check: string, values: unknown): string[] {
  if (values === null || typeof values !== 'object') return [];
  const paths = readPaths(check);
  const outer = (path: readonly string[]) => paths.some((p) => p.length > path.length && path.every((f, i) => p[i] === f));
  const out: string[] = [];
  for (const path of paths) for (const entry of resolve(values, path, '', outer(path))) if (!out.includes(entry)) out.push(entry);
  return out.slice(0, MAX_ATTRIBUTES);
}

/**
 * The top-level attributes `check` reads that `values` does not hold (`force_destroy` of a
 * check that passes only when it is set): what failed when no attribute was set. At most 4. Pure.
 */
export function unsetAttributes(check: string, values: unknown): string[] {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) return [];
  const top = [...new Set(readPaths(check).map((p) => p[0]))];
  return top.filter((name) => !(name in values)).slice(0, MAX_ATTRIBUTES);
}

/** The `values` paths a check reads (see failingAttributes), `*` standing for a list's elements; once per check. */
const readPaths = memoByText((check): readonly (readonly string[])[] => {
  const paths: string[][] = [];
  const add = (path: string[]) => {
    if (path.length > 0 && !paths.some((p) => p.join('.') === path.join('.'))) paths.push(path);
  };
  const expression = withoutCompanionCalls(check);
  collectPaths(expression, new Map(), add);
  for (const m of expression.matchAll(/values\s*\[\s*"([^"]+)"\s*\]/g)) add([m[1]]);
  if (/values\s*\[\s*[A-Za-z_]\w*\s*\]/.test(expression)) for (const m of expression.matchAll(/"([a-z_][a-z0-9_]*)"/g)) add([m[1]]);
  return paths;
});

/**
 * Adds the `values` paths `expression` reads: `values.a.b`, and inside a macro over a list
 * (`<list>.exists(v, …)`, the list a values path or a bound variable's) the fields of `v`
 * under `<list>[*]`. A macro's body is scanned with its own variable in scope.
 */
function collectPaths(expression: string, scope: ReadonlyMap<string, string[]>, add: (path: string[]) => void): void {
  const base = (root: string, fields: string[]): string[] | null => (root === 'values' ? fields : scope.has(root) ? [...scope.get(root)!, ...fields] : null);
  const call = new RegExp(`\\b([A-Za-z_]\\w*)((?:\\.[A-Za-z_]\\w*)*)\\.(?:${MACROS})\\(\\s*([A-Za-z_]\\w*)\\s*,`, 'g');
  let rest = '';
  let i = 0;
  for (let m = call.exec(expression); m !== null; m = call.exec(expression)) {
    const end = closingParen(expression, m.index + m[0].length);
    const list = base(m[1], m[2] === '' ? [] : m[2].slice(1).split('.'));
    rest += expression.slice(i, m.index);
    if (list !== null && list.length > 0) {
      add(list);
      collectPaths(expression.slice(m.index + m[0].length, end - 1), new Map(scope).set(m[3], [...list, '*']), add);
    } else rest += ` ${expression.slice(m.index + m[0].length, end - 1)} `;
    i = end;
    call.lastIndex = end;
  }
  rest += expression.slice(i);
  for (const m of rest.matchAll(/\b([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)(?![\w(])/g)) {
    const path = base(m[1], m[2].slice(1).split('.'));
    if (path !== null) add(path);
  }
}

/** The index just after the parenthesis closing the one opened before `from` (string literals skipped). */
function closingParen(text: string, from: number): number {
  let depth = 1;
  let j = from;
  for (let quote = ''; j < text.length && depth > 0; j += 1) {
    const c = text[j];
    if (quote) {
      if (c === '\\') j += 1;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
  }
  return j;
}

/** `path = value` for each leaf of `path` under `node` (`*`: each element of a short list); `scalarOnly` skips a list or object at the end. */
function resolve(node: unknown, path: readonly string[], prefix: string, scalarOnly: boolean): string[] {
  if (path.length === 0) return nameable(node, scalarOnly) ? [`${prefix} = ${show(node)}`] : [];
  const [head, ...rest] = path;
  if (head === '*')
    return Array.isArray(node) && node.length <= MAX_LIST_ELEMENTS ? node.flatMap((item, i) => resolve(item, rest, `${prefix}[${i}]`, scalarOnly)) : [];
  if (node === null || typeof node !== 'object' || Array.isArray(node) || !(head in node)) return [];
  return resolve((node as Record<string, unknown>)[head], rest, prefix === '' ? head : `${prefix}.${head}`, scalarOnly);
}

/**
 * Whether a value says what failed: a scalar, or an empty or scalar list (a block or a list of
 * blocks is the container of the failing setting, not the setting); never an unknown value
 * (unknown never fails a check).
 */
function nameable(value: unknown, scalarOnly: boolean): boolean {
  if (value === undefined || value === UNKNOWN) return false;
  if (value === null || typeof value !== 'object') return true;
  if (scalarOnly) return false;
  if (Array.isArray(value)) return value.every((v) => v === null || typeof v !== 'object');
  return Object.keys(value).length === 0;
}

const UNKNOWN = '(known after apply)';

/** A value as the plan shows it: JSON, with the plan's markers `(known after apply)` and `(sensitive value)` bare; cut at 80 characters. */
function show(value: unknown): string {
  const text = typeof value === 'string' && /^\((?:known after apply|sensitive value)\)$/.test(value) ? value : (JSON.stringify(value) ?? 'null');
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** `check` without its `companions.<macro>(...)` calls (balanced parentheses, string literals skipped). */
export function withoutCompanionCalls(check: string): string {
  let out = '';
  let i = 0;
  const call = /companions\s*\.\s*[A-Za-z_]\w*\s*\(/g;
  for (let m = call.exec(check); m !== null; m = call.exec(check)) {
    out += check.slice(i, m.index);
    i = closingParen(check, m.index + m[0].length);
    call.lastIndex = i;
  }
  return out + check.slice(i);
}

/**
 * `text` as one plain sentence: Markdown code spans unwrapped (a finding's text is shown as plain
 * text in the dashboard, SARIF and the PR comment), ending with a full stop.
 */
function sentence(text: string): string {
  const t = text.replace(/`([^`]+)`/g, '$1').trim();
  return /[.!?)]$/.test(t) ? t : `${t}.`;
}

/**
 * Whether an evidence line shows a setting with its value (`privileged: true`, `"CidrIp" : "0.0.0.0/0"`,
 * `RUN curl … | sh`): not a comment, a resource or block opener, an unknown value, or a name.
 */
function isSettingLine(line: string): boolean {
  const t = line.trim();
  if (t === '' || t.startsWith('#') || RESOURCE_LINE_RE.test(t) || /[{[:,]$/.test(t) || t.includes(UNKNOWN)) return false;
  return !/^(?:[+~-]\s+)?(?:-\s+)?"?(?:name|kind|apiVersion|Key|Type)"?\s*[:=]/.test(t);
}

/** The mask the analyzers write in place of a secret's value (analyzers/common/secrets.ts). */
const SECRET_MASK = '(sensitive value)';

/**
 * For a rule that reads the masked secrets (`secrets` in its check: a literal was found and
 * masked), a clause saying what the mask in `observed` means; `admin_password = (sensitive
 * value)` alone reads as if the input held no secret. Empty otherwise.
 */
function maskedSecretNote(rule: RuleDef, observed: string): string {
  return /\bsecrets\b/.test(rule.check ?? '') && observed.includes(SECRET_MASK) ? ', where the input holds a plain-text literal that is masked here' : '';
}

/**
 * A deterministic finding for `rule` matched on `unit` (analysis-api.md "Analysis payload"
 * finding shape): `risk` states what failed on the unit (the attributes the check read with
 * their values, else the first evidence line that shows a setting, else the attributes the check
 * found unset) and the rule's title; `why_it_matters` is the rule's `Risk:` (else its
 * first `Look for:` bullet); `suggested_next_step` its `Remediation:` (else a pointer to the
 * rule's compliant example). Evidence stays the exact body lines (the spec's evidence).
 */
export function checkFindingText(rule: RuleDef, unit: AnalysisUnit, evidence: readonly string[]): Finding {
  const sections = cachedSections(rule.body);
  const attributes = rule.check ? failingAttributes(rule.check, unit.metadata.values) : [];
  const unset = rule.check && attributes.length === 0 ? unsetAttributes(rule.check, unit.metadata.values) : [];
  // The deepest setting among the evidence (the body's lines run from the block to the value).
  const line = evidence.findLast(isSettingLine);
  const observed =
    attributes.length > 0
      ? `${unit.name} sets ${attributes.join(', ')}`
      : line !== undefined
        ? `${unit.name} has ${line.replace(/^[+~-]\s+/, '').replace(/\s*\\$/, '')}`
        : unset.length > 0
          ? `${unit.name} leaves ${unset.join(', ')} unset`
          : unit.name;
  return {
    title: rule.title,
    severity: rule.severity,
    rule_id: rule.rule_id,
    risk: `${observed}${maskedSecretNote(rule, observed)}: ${sentence(rule.title)}`,
    why_it_matters: sentence(sections.risk ?? sections.lookFor ?? rule.title),
    suggested_next_step: sentence(sections.remediation ?? `Change the unit to the compliant example of rule ${rule.rule_id}`),
    confidence: 'HIGH',
    evidence: [...evidence],
    resource_address: unit.name,
    tags: ['deterministic'],
  };
}
