/**
 * A cheap necessary condition of a check, read from its parsed expression: for the common shape
 * `… && lines.exists(l, … && l.matches("<pattern>"))`, the check can be true only when some line
 * of the unit holds one of the pattern's required literals (pattern-prefilter.ts); for a
 * comparison of `unit.type` or `unit.action` with string literals (`unit.type == "…"`,
 * `unit.type in ["…", …]`, `unit.type.startsWith("…")`, `unit.action != "destroy"`), that
 * comparison, which a plan-wide check makes once per resource type it covers. When the
 * condition fails, the check is known not to match without evaluating it: no type check, no RE2
 * compilation, no per-line calls into the CEL evaluator (docs/decisions.md "Checks cheap before
 * CEL"). The reading only ever concludes "cannot be true", which is what an evaluation error
 * or `false` also gives (run-checks.ts), so skipping is invisible in the findings.
 */
import { patternPrefilter } from './pattern-prefilter';

/**
 * The variables the condition reads: the unit's trimmed body lines (run-checks.ts `lines`) and
 * its `unit` variable's type and action (always strings).
 */
export interface PrefilterInput {
  readonly lines: readonly string[];
  readonly unit: { readonly type: string; readonly action: string };
}

/** False only when the check cannot evaluate to `true` for these variables. */
export type CheckPrefilter = (input: PrefilterInput) => boolean;

interface Node {
  readonly op: string;
  readonly args: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string' && 'args' in value;
}

/** The names cel-regex.ts may have given a `matches` call. */
const MATCHES_NAMES = new Set(['matches', 'matchesLinear']);

/** A condition over one line (the iteration variable of `lines.exists`); null: nothing known. */
type LineCondition = ((line: string) => boolean) | null;

/**
 * The necessary condition of a parsed check (cel-js AST, as `CelProgram.ast`), or null when its
 * shape gives none. Pure; reads the tree, never changes it.
 */
export function checkPrefilter(ast: unknown): CheckPrefilter | null {
  return condition(ast);
}

/** `a && b` is true only when both are; `a || b` only when one is (CEL's error rules agree). */
function combine<T>(op: string, a: ((x: T) => boolean) | null, b: ((x: T) => boolean) | null): ((x: T) => boolean) | null {
  if (op === '&&') {
    if (a && b) return (x) => a(x) && b(x);
    return a ?? b;
  }
  if (a && b) return (x) => a(x) || b(x);
  return null;
}

function condition(node: unknown): CheckPrefilter | null {
  if (!isNode(node)) return null;
  if ((node.op === '&&' || node.op === '||') && Array.isArray(node.args) && node.args.length === 2) {
    return combine(node.op, condition(node.args[0]), condition(node.args[1]));
  }
  // `lines.exists(v, body)` (`exists_one` too: true needs one true element): some line must pass body's condition.
  const call = methodCall(node);
  if (call && (call.name === 'exists' || call.name === 'exists_one') && isIdentifier(call.receiver, 'lines') && call.args.length === 2) {
    const [variable, body] = call.args;
    if (!isNode(variable) || variable.op !== 'id' || typeof variable.args !== 'string') return null;
    const test = lineCondition(body, variable.args);
    return test ? ({ lines }) => lines.some(test) : null;
  }
  return unitCondition(node);
}

/** The `unit` fields a condition compares with literals. */
const UNIT_FIELDS = new Set(['type', 'action']);

/**
 * `unit.<field> == "s"` (either side), `!= "s"`, `in [<string literals>]` or
 * `.startsWith("s")` as a test of the unit, for `type` and `action`; null for anything else.
 * Read at the top level only (through `&&` and `||`), where `unit` is always the variable
 * run-checks.ts binds, never a macro's own.
 */
function unitCondition(node: Node): CheckPrefilter | null {
  const call = methodCall(node);
  if (call) {
    const field = unitField(call.receiver);
    const prefix = call.args.length === 1 ? stringValue(call.args[0]) : null;
    if (call.name !== 'startsWith' || field === null || prefix === null) return null;
    return ({ unit }) => unit[field].startsWith(prefix);
  }
  if (!Array.isArray(node.args) || node.args.length !== 2) return null;
  const [left, right] = node.args as [unknown, unknown];
  if (node.op === 'in') {
    const field = unitField(left);
    const list = isNode(right) && right.op === 'list' && Array.isArray(right.args) ? right.args.map(stringValue) : null;
    if (field === null || list === null || list.some((v) => v === null)) return null;
    const values = new Set(list);
    return ({ unit }) => values.has(unit[field]);
  }
  if (node.op !== '==' && node.op !== '!=') return null;
  const field = unitField(left) ?? unitField(right);
  const value = stringValue(left) ?? stringValue(right);
  if (field === null || value === null) return null;
  return node.op === '==' ? ({ unit }) => unit[field] === value : ({ unit }) => unit[field] !== value;
}

/** `unit.type` or `unit.action` → the field's name; null for anything else. */
function unitField(node: unknown): 'type' | 'action' | null {
  if (!isNode(node) || node.op !== '.' || !Array.isArray(node.args) || node.args.length !== 2) return null;
  const [receiver, field] = node.args as [unknown, unknown];
  return isIdentifier(receiver, 'unit') && typeof field === 'string' && UNIT_FIELDS.has(field) ? (field as 'type' | 'action') : null;
}

/** A string literal's value; null for anything else. */
function stringValue(node: unknown): string | null {
  return isNode(node) && node.op === 'value' && typeof node.args === 'string' ? node.args : null;
}

/** What `body` needs of the line bound to `variable`; nested macros and anything else say nothing. */
function lineCondition(node: unknown, variable: string): LineCondition {
  if (!isNode(node)) return null;
  if ((node.op === '&&' || node.op === '||') && Array.isArray(node.args) && node.args.length === 2) {
    return combine(node.op, lineCondition(node.args[0], variable), lineCondition(node.args[1], variable));
  }
  const call = methodCall(node);
  if (!call || !MATCHES_NAMES.has(call.name) || !isIdentifier(call.receiver, variable) || call.args.length !== 1) return null;
  const pattern = call.args[0];
  if (!isNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string') return null;
  return patternPrefilter(pattern.args);
}

/** A receiver call `receiver.name(args…)` (cel-js `rcall`), or null. */
function methodCall(node: Node): { name: string; receiver: unknown; args: readonly unknown[] } | null {
  if (node.op !== 'rcall' || !Array.isArray(node.args) || node.args.length !== 3) return null;
  const [name, receiver, args] = node.args as [unknown, unknown, unknown];
  if (typeof name !== 'string' || !Array.isArray(args)) return null;
  return { name, receiver, args };
}

function isIdentifier(node: unknown, name: string): boolean {
  return isNode(node) && node.op === 'id' && node.args === name;
}
