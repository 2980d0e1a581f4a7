/**
 * Deterministic findings in the stored analysis: alone when no model runs, merged
 * with the model's findings otherwise.
 */
import { createHash } from 'node:crypto';
import { NO_FINDINGS_RULE_ID, type AnalysisPayload } from '../core/finding-model';
import type { AnalysisUnit } from '../core/unit';
import { checkFinding, type CheckMatch } from './run-checks';

/**
 * The payload of a checks-only analysis (no model): one HIGH finding per match, or the
 * NO-FINDINGS all-clear when none matched. `checked` = number of rules with a check that were
 * applicable to the unit (stated in the summary).
 */
export function deterministicPayload(matches: readonly CheckMatch[], unit: AnalysisUnit, checked: number): AnalysisPayload {
  const summary = `Deterministic checks only (no model): ${matches.length} of ${checked} applicable check(s) matched ${unit.name}.`;
  if (matches.length > 0) return { summary, findings: matches.map((m) => checkFinding(m, unit)) };
  return {
    summary,
    findings: [
      {
        title: 'No findings',
        severity: 'INFO',
        rule_id: NO_FINDINGS_RULE_ID,
        risk: `No deterministic check matched (${checked} checked); rules without a check were not evaluated.`,
        why_it_matters: 'Only machine-checkable conditions were tested.',
        suggested_next_step: 'Run the analysis with a model for the remaining rules.',
        confidence: 'HIGH',
        evidence: [],
        resource_address: unit.name,
        tags: [],
      },
    ],
  };
}

/**
 * A model's payload with the deterministic matches folded in: a match replaces the model's
 * finding of the same rule_id (it is proven, HIGH, with its evidence; the model's evidence lines
 * are kept beside it), matches the model left out are added, and NO-FINDINGS goes once any
 * finding remains.
 */
export function mergeFindings(model: AnalysisPayload, matches: readonly CheckMatch[], unit: AnalysisUnit): AnalysisPayload {
  if (matches.length === 0) return model;
  const byRule = new Map(model.findings.map((f) => [f.rule_id, f]));
  const proven = matches.map((m) => {
    const own = checkFinding(m, unit);
    const said = byRule.get(m.rule.rule_id);
    if (!said) return own;
    return {
      ...said,
      severity: said.severity,
      confidence: 'HIGH' as const,
      evidence: [...new Set([...own.evidence, ...said.evidence])],
      tags: [...new Set([...said.tags, 'deterministic'])],
    };
  });
  const provenIds = new Set(matches.map((m) => m.rule.rule_id));
  const rest = model.findings.filter((f) => !provenIds.has(f.rule_id) && f.rule_id !== NO_FINDINGS_RULE_ID);
  return { summary: model.summary, findings: [...proven, ...rest] };
}

/**
 * The ruleset digest recorded for a checks-only analysis: distinct from the model run's digest of
 * the same rules, so a later analysis with a model re-analyses the unit.
 */
export function checksOnlyDigest(rulesetDigest: string): string {
  return createHash('sha256').update(`checks-only\u0000${rulesetDigest}`, 'utf8').digest('hex');
}
