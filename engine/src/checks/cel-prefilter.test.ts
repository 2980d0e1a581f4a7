import { describe, expect, it } from 'vitest';
import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import type { AnalysisUnit } from '../core/unit';
import { autoRoute } from '../ingest/auto-route';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules } from '../rules/ruleset';
import { corpusFile, corpusFiles } from '../../../tests/corpus';
import { checkPrefilter } from './cel-prefilter';
import { checkVariables, compileCheck } from './run-checks';

const program = (check: string) => {
  const compiled = compileCheck(check);
  if (compiled instanceof Error) throw compiled;
  return compiled;
};
const prefilterOf = (check: string) => checkPrefilter(program(check).ast);
const lines = (...text: string[]) => ({ lines: text, unit: { type: 'aws_instance', action: 'create' } });
const unit = (type: string, action: string, ...text: string[]) => ({ lines: text, unit: { type, action } });

describe('the necessary condition read from a check', () => {
  it('skips only evaluations that could not be true: every shipped check it reads, on every corpus unit', () => {
    const checks = [
      ...new Set(
        ['terraform', 'dockerfile', 'github-actions', 'kubernetes', 'cloudformation'].flatMap((a) =>
          listBuiltinRuleVariants(a).flatMap((v) => parseRules(loadBuiltinRuleset(a, v)).flatMap((r) => (r.check ? [r.check] : []))),
        ),
      ),
    ].flatMap((check) => {
      const prefilter = prefilterOf(check);
      return prefilter ? [{ check, prefilter, evaluate: program(check) }] : [];
    });
    expect(checks.length).toBeGreaterThanOrEqual(5);
    const units: AnalysisUnit[] = ['dockerfile', 'gha-workflow', 'diff-tf', 'diff-mixed', 'tfplan-text', 'tfplan-json', 'k8s-yaml', 'cfn-template'].flatMap(
      (folder) => corpusFiles(folder).flatMap((file) => autoRoute(corpusFile(file).toString('utf8'), BUILT_IN_ANALYZERS, () => true).units),
    );
    expect(units.length).toBeGreaterThan(100);
    let skipped = 0;
    let passedAndMatched = 0;
    for (const unit of units) {
      const variables = checkVariables(unit);
      for (const { check, prefilter, evaluate } of checks) {
        let result: unknown;
        try {
          result = evaluate(variables);
        } catch {
          result = undefined;
        }
        if (!prefilter(variables)) {
          skipped += 1;
          expect(result, `${check} on ${unit.name}`).not.toBe(true);
        } else if (result === true) passedAndMatched += 1;
      }
    }
    expect(skipped).toBeGreaterThan(500);
    expect(passedAndMatched).toBeGreaterThan(0);
  });

  it('reads conjunctions, disjunctions of readable parts and `lines.exists` over `matches`', () => {
    const check = prefilterOf('unit.action != "destroy" && lines.exists(l, !l.startsWith("-") && l.matches("curl[^|]*\\\\|\\\\s*sh"))')!;
    expect(check(lines('RUN apt-get update', 'RUN curl -fsSL https://x | sh'))).toBe(true);
    expect(check(lines('RUN apt-get update', 'RUN wget -O- https://x | sh'))).toBe(false);
    const either = prefilterOf('lines.exists(l, l.matches("alpha") || l.matches("beta"))')!;
    expect(either(lines('x beta'))).toBe(true);
    expect(either(lines('gamma'))).toBe(false);
  });

  it('reads comparisons of unit.type and unit.action with string literals', () => {
    const check = prefilterOf(
      'unit.action != "destroy" && ((unit.type == "aws_s3_bucket" && values.acl == "public-read") || (unit.type in ["aws_db_instance", "aws_rds_cluster"] && values.encrypted == false) || (unit.type.startsWith("azurerm_") && values.public == true) || ("google_sql_database_instance" == unit.type && values.ssl == false))',
    )!;
    for (const type of ['aws_s3_bucket', 'aws_db_instance', 'aws_rds_cluster', 'azurerm_storage_account', 'google_sql_database_instance']) {
      expect(check(unit(type, 'create')), type).toBe(true);
      expect(check(unit(type, 'destroy')), `${type} destroyed`).toBe(false);
    }
    for (const type of ['aws_instance', 'aws_s3_bucket_policy', 'google_storage_bucket']) expect(check(unit(type, 'update')), type).toBe(false);
    // Beside a line condition: either part may make the check true.
    const either = prefilterOf('unit.type == "dockerfile_instruction" || lines.exists(l, l.matches("secret"))')!;
    expect(either(unit('dockerfile_instruction', 'create'))).toBe(true);
    expect(either(unit('other', 'create', 'a secret here'))).toBe(true);
    expect(either(unit('other', 'create', 'nothing'))).toBe(false);
  });

  it('says nothing where a check may be true without such a line', () => {
    for (const check of [
      '!lines.exists(l, l.matches("secret"))',
      'lines.all(l, l.matches("secret"))',
      'lines.exists(l, !l.matches("secret"))',
      'lines.exists(l, l.matches("secret") || l == "x")',
      'unit.type == "x" || values.secret == true',
      // Not the unit variable: a macro's own, or a value compared with another value.
      'values.items.exists(unit, unit.type == "x")',
      'unit.type == values.type',
      'unit.type in ["x", values.type]',
      'unit.name == "x"',
      // Not the unit's lines: a list of the planned values, whatever its variable is called.
      'values.items.exists(lines, lines.matches("secret"))',
      'lines.exists(l, values.name.matches("secret"))',
      'lines.exists(l, l.matches(values.pattern))',
      'lines.exists(l, lines.exists(m, m.matches("secret")))',
      'lines.exists(l, l.matches("(?i)secret"))',
    ])
      expect(prefilterOf(check), check).toBeNull();
  });
});
