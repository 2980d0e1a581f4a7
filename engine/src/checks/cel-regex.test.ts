import { describe, expect, it } from 'vitest';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules, type RuleDef } from '../rules/ruleset';
import { linearPatternError } from '../core/linear-regex';
import type { AnalysisUnit } from '../core/unit';
import { BUILTIN_NON_RE2_PATTERNS, celMatches } from './cel-regex';
import { compileCheck, runChecks } from './run-checks';

/** Backtracking RegExp needs ~2^40 steps for this line against `(a+)+` patterns (hours); RE2 one pass. */
const EVIL_LINE = `${'a'.repeat(40)}!`;

const unit = (body: string): AnalysisUnit => ({ type: 'file', name: 'x', action: 'create', body, metadata: {} }) as unknown as AnalysisUnit;
const rule = (check: string): RuleDef => ({
  rule_id: 'CUSTOM-X',
  title: 'x',
  severity: 'HIGH',
  applies_to: [],
  inputs: 'any',
  actions: [],
  check,
  body: '## CUSTOM-X: x',
});

describe('CEL matches() runs on the linear-time engine', () => {
  it("a tenant's catastrophic pattern answers at once, in the check and in its evidence", () => {
    expect(runChecks([rule('lines.exists(l, l.matches("^(a+)+$"))')], unit(EVIL_LINE))).toEqual([]);
    // The check matches through another condition; collecting evidence still tests every line with the pattern.
    const matched = runChecks([rule('lines.exists(l, l == "hit") || "b".matches("^(a+)+$")')], unit(`hit\n${EVIL_LINE}`));
    expect(matched.map((m) => m.rule.rule_id)).toEqual(['CUSTOM-X']);
    // A pattern computed at run time goes the same way.
    const dynamic = compileCheck('values.text.matches(values.pattern)');
    expect(dynamic).not.toBeInstanceOf(Error);
    expect((dynamic as Exclude<typeof dynamic, Error>)({ values: { text: EVIL_LINE, pattern: '(a|aa)+$' } })).toBe(false);
  });

  it('ordinary patterns behave as before: unanchored search, case-sensitive; RE2 syntax only', () => {
    expect(runChecks([rule('lines.exists(l, l.matches("public-read"))')], unit('acl = "public-read-write"'))).toHaveLength(1);
    expect(runChecks([rule('lines.exists(l, l.matches("PUBLIC"))')], unit('acl = "public-read"'))).toEqual([]);
    expect(runChecks([rule('lines.exists(l, l.matches("(?i)PUBLIC"))')], unit('acl = "public-read"'))).toHaveLength(1);
    // Lookaround and backreferences are not RE2: the check does not match (it never throws).
    expect(runChecks([rule('lines.exists(l, l.matches("(a)\\\\1"))')], unit('aa'))).toEqual([]);
    expect(runChecks([rule('lines.exists(l, l.matches("a(?=b)"))')], unit('ab'))).toEqual([]);
    // A string literal that merely contains ".matches(" is left alone.
    expect(runChecks([rule('lines.exists(l, l == ".matches(\\"x\\")")')], unit('.matches("x")'))).toHaveLength(1);
  });

  it('every pattern of the shipped rules compiles on RE2, except the listed built-in ones', () => {
    const rules = ['terraform', 'dockerfile', 'github-actions', 'kubernetes', 'cloudformation', 'blackhole'].flatMap((a) =>
      listBuiltinRuleVariants(a).flatMap((v) => parseRules(loadBuiltinRuleset(a, v))),
    );
    const patterns = new Set(
      rules.flatMap((r) => [...(r.check ?? '').matchAll(/\.matches\(\s*("(?:[^"\\]|\\.)*")\s*\)/g)].map((m) => JSON.parse(m[1]) as string)),
    );
    expect(patterns.size).toBeGreaterThanOrEqual(20);
    const notRe2 = [...patterns].filter((p) => linearPatternError(p) !== null);
    expect(notRe2.sort()).toEqual([...BUILTIN_NON_RE2_PATTERNS.keys()].sort());
    expect(celMatches('# stage 2 of 2', String.raw`^# stage (\d+) of \1$`)).toBe(true);
    expect(celMatches('# stage 1 of 2', String.raw`^# stage (\d+) of \1$`)).toBe(false);
  });
});
