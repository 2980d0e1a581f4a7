import type * as Sarif from 'sarif';
import { loadNamespaceReportData, type ReportInputOptions } from './report-input';
import { resolveRuleset } from '../analysis/ruleset-service';
import type { EngineContext } from '../context/engine-context';
import { AppError } from '../core/errors';
import type { RuleDef } from '../rules/ruleset';
import { rulesetRules } from '../rules/select';
import { buildReportModelInSlices } from './model';
import { buildSarifLogInSlices } from './sarif';
import { nextTurn } from '../ingest/timed-batches';

/** Media type of a SARIF log (SARIF 2.1.0 §3.1, registered with IANA). */
export const SARIF_CONTENT_TYPE = 'application/sarif+json';

/** The tool a SARIF log names as its driver. */
export const SARIF_TOOL = { name: 'Planwarden', version: '0.1.0' } as const;

/**
 * GET /{namespace}/report?format=sarif (analysis-api.md "Reports and report links"): the
 * namespace's findings as a SARIF 2.1.0 log (report/sarif.ts). Every finding is included;
 * those triaged suppressed or false_positive carry a SARIF suppression instead of being left
 * out, so code scanning closes them as dismissed rather than fixed. Rule help comes from the
 * org's rulesets (built-ins with the org's edits, plus custom rules) of each analyzer in the
 * namespace. `options.job` as in renderNamespaceReport; `options.dashboardUrl` (the namespace's
 * findings page, finding-links.ts) gives each result its page as `hostedViewerUri`. Throws NotFoundError (404) for an
 * unknown namespace, ValidationError (422) for a malformed one. Gives the event loop a turn
 * between its steps, so no step of a large namespace holds the server for long.
 */
export async function buildNamespaceSarif(
  ctx: EngineContext,
  orgId: string,
  namespace: string,
  options: Pick<ReportInputOptions, 'job' | 'dashboardUrl'> = {},
): Promise<Sarif.Log> {
  // Each step below is tens of milliseconds on a namespace of thousands of findings: a turn of the
  // event loop between them (nextTurn) keeps any one stall to a step, and the results are built
  // in slices (buildReportModelInSlices, buildSarifLogInSlices).
  const data = await loadNamespaceReportData(ctx, orgId, namespace, { includeSuppressed: true, job: options.job, dashboardUrl: options.dashboardUrl });
  await nextTurn();
  const model = await buildReportModelInSlices(data.input);
  await nextTurn();
  const analyzers = new Set(model.findings.map((f) => f.analyzer));
  const ruleIds = new Set(model.findings.map((f) => f.rule_id));
  const units = new Map([...data.resources].map(([hash, r]) => [hash, r.metadata]));
  const notes = new Map([...data.triage].map(([key, t]) => [key, t.note]));
  const rules = await orgRules(ctx, orgId, analyzers, ruleIds);
  await nextTurn();
  return buildSarifLogInSlices({ model, units, notes, rules, tool: SARIF_TOOL });
}

/**
 * The rules of the variants of `analyzerNames` as the org applies them, first definition of an id
 * winning, read until each of `wanted` (the ids the log's findings cite, the only ones it
 * describes) has its definition: the rulesets left unread could not change theirs, and resolving
 * one is a stall of its own.
 */
async function orgRules(ctx: EngineContext, orgId: string, analyzerNames: ReadonlySet<string>, wanted: ReadonlySet<string>): Promise<Map<string, RuleDef>> {
  const rules = new Map<string, RuleDef>();
  for (const name of [...analyzerNames].sort()) {
    const analyzer = ctx.analyzers.get(name);
    if (!analyzer?.ruleVariants) continue;
    for (const variant of analyzer.ruleVariants) {
      let defs: readonly RuleDef[];
      try {
        // Parsed once per ruleset text (rulesetRules' cache, shared with rule selection), not on every report.
        defs = rulesetRules((await resolveRuleset(ctx, orgId, analyzer, variant)).text);
      } catch (error) {
        // A ruleset that cannot be read only costs the rules their help text; the findings stay.
        if (error instanceof AppError) continue;
        throw error;
      }
      for (const def of defs) if (!rules.has(def.rule_id)) rules.set(def.rule_id, def);
      if ([...wanted].every((id) => rules.has(id))) return rules;
      await nextTurn(); // resolving a ruleset takes a few milliseconds; an analyzer has several
    }
  }
  return rules;
}
