/**
 * CEL's `matches()` on the linear-time engine. A rule's `Check (CEL):` line can be written by a
 * tenant (a custom rule's description, an edited seeded built-in rule), and cel-js implements
 * `string.matches(string)` with JavaScript's backtracking RegExp, so `l.matches("^(a+)+$")`
 * against a unit line of `a`s would block the event loop for minutes. Checks therefore parse in
 * an environment where every `matches` call runs on RE2 (linear-regex.ts), the engine cel-spec
 * itself names for `matches` (docs/decisions.md "Tenant patterns run on a linear-time engine").
 */
import { Environment } from '@marcbachmann/cel-js';
import { tryLinearPattern } from '../core/linear-regex';
import { memoByText } from './memo';
import { patternPrefilter } from './pattern-prefilter';

/**
 * Patterns of the shipped built-in rules that RE2 cannot compile (a backreference), matched with
 * RegExp. Each is ours, anchored and free of nested quantifiers, so it cannot backtrack
 * catastrophically; run-checks.test.ts holds that every other shipped pattern compiles on RE2.
 * A tenant may use the same text, never any other non-RE2 pattern.
 */
export const BUILTIN_NON_RE2_PATTERNS: ReadonlyMap<string, RegExp> = new Map([
  // dockerfile rules: "the last stage" (`# stage N of N`, instructions.ts numbers the stages).
  [String.raw`^# stage (\d+) of \1$`, /^# stage (\d+) of \1$/],
]);

/**
 * The matcher of a `matches()` pattern (unanchored `test`): RE2 (linear time), or for one of
 * BUILTIN_NON_RE2_PATTERNS its RegExp; null for any other pattern RE2 cannot compile.
 */
export function celPattern(pattern: string): { test(text: string): boolean } | null {
  return matcherOf(pattern);
}

/**
 * celPattern once per pattern. A text that holds none of the pattern's required literals
 * (pattern-prefilter.ts) cannot match: RE2 does not run on it. The pattern still compiles
 * first, so an invalid one is refused whatever the text.
 */
const matcherOf = memoByText((pattern): { test(text: string): boolean } | null => {
  const matcher = tryLinearPattern(pattern) ?? BUILTIN_NON_RE2_PATTERNS.get(pattern) ?? null;
  const prefilter = matcher ? patternPrefilter(pattern) : null;
  return matcher && prefilter ? { test: (text) => prefilter(text) && matcher.test(text) } : matcher;
});

/**
 * Whether `pattern` matches anywhere in `text` (CEL `matches`). Throws for a pattern celPattern
 * refuses, so the check evaluating it does not match.
 */
export function celMatches(text: string, pattern: string): boolean {
  const matcher = celPattern(pattern);
  if (!matcher) throw new Error(`matches(): not an RE2 regular expression: ${pattern}`);
  return matcher.test(text);
}

/** The name the environment gives the linear `matches`; every parsed `matches` call is pointed at it. */
const LINEAR_MATCHES = 'matchesLinear';

const environment = new Environment({ unlistedVariablesAreDyn: true }).registerFunction(
  `string.${LINEAR_MATCHES}(string): bool`,
  (text: string, pattern: string) => celMatches(text, pattern),
);

interface AstLike {
  readonly op: string;
  readonly args: unknown;
}

function isAst(value: unknown): value is AstLike {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string' && 'args' in value;
}

/**
 * Points every `<string>.matches(<pattern>)` call of a parsed expression at LINEAR_MATCHES. cel-js
 * binds a call to its overload when the expression is first type-checked (its first evaluation),
 * by the method name an `rcall` node carries in `args[0]`; renaming it before then selects ours.
 * Macro expansions (exists, all, filter, map) share the call nodes of the parsed tree.
 */
function routeMatches(node: unknown, seen: Set<object>): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) routeMatches(item, seen);
    return;
  }
  if (!isAst(node)) return;
  const args = node.args;
  if (node.op === 'rcall' && Array.isArray(args) && args[0] === 'matches') args[0] = LINEAR_MATCHES;
  if (Array.isArray(args)) routeMatches(args, seen);
  else if (isAst(args)) routeMatches(args, seen);
}

/** A parsed check: call it with the variables to evaluate. */
export type CelProgram = ReturnType<typeof environment.parse>;

/**
 * Parses a CEL expression (unlisted variables are dyn, as cel-js's default `parse`) with
 * `matches` on the linear-time engine. Throws cel-js's ParseError for an expression that does
 * not parse.
 */
export function parseCel(expression: string): CelProgram {
  const program = environment.parse(expression);
  routeMatches(program.ast, new Set());
  return program;
}
