import { randomUUID } from 'node:crypto';
import type * as Sarif from 'sarif';
import { assertNamespace } from '../analysis/ingest-service';
import { assertRuleVariant, unitRuleVariant, type ResolvedRuleset } from '../analysis/ruleset-service';
import { deterministicPayload } from '../checks/merge';
import { runChecks } from '../checks/run-checks';
import type { AnalyzerRegistry } from '../context/engine-context';
import { AppError, NotFoundError, NotImplementedError, PayloadTooLargeError } from '../core/errors';
import { NO_FINDINGS_RULE_ID, type AnalysisPayload } from '../core/finding-model';
import type { Analyzer, AnalysisUnit, UnitAction } from '../core/unit';
import { autoRoute } from '../ingest/auto-route';
import { assertNotEmpty, assertUnitsFound } from '../ingest/ingest-checks';
import { composeRuleset, loadBuiltinRuleset, rulesetDigest, type RuleDef } from '../rules/ruleset';
import { rulesetRules, selectRuleDefs } from '../rules/select';
import { buildReportModel, reportInputResource, type ReportInput, type ReportModel } from './model';
import { buildSarifLog } from './sarif';
import { SARIF_TOOL } from './sarif-service';

/**
 * A checks-only analysis held in memory, for one process that has no store (the `planwarden`
 * command's local mode, docs/ci.md): ingest, the rules' deterministic checks and the namespace's
 * report, composed of the functions the server's path runs (analysis/analyze-service.ts
 * startAnalysis → run-job.ts with no provider → report/namespace-report.ts and sarif-service.ts),
 * so the findings, the Markdown and the SARIF log are those a fresh server gives for the same
 * bodies in one namespace: the default organization with the built-in rules seeded unchanged, no
 * custom rules, every analyzer enabled, no triage yet.
 */

/** One analysed body, as the job the server would have recorded (analysis-api.md "Job"). */
export interface ChecksOnlyJob {
  readonly job_id: string;
  readonly status: 'done';
  /** Distinct units of the body. */
  readonly resource_count: number;
  readonly processed_count: number;
  readonly total_count: number;
  readonly quota_exceeded: false;
}

/** A stored resource as the report reads it: the unit, its analyzer and its checks' payload. */
interface HeldResource {
  readonly hash: string;
  readonly analyzer: string;
  readonly value: { readonly type: string; readonly name: string; readonly action: string };
  readonly metadata: Record<string, unknown>;
  readonly analysis: AnalysisPayload;
}

/** A value as a JSON store gives it back (undefined members dropped), as the server's report reads it. */
function stored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * resolveRuleset (analysis/ruleset-service.ts) for an org whose seeded built-in rows are
 * unchanged and that has no custom rules: the built-in text, composed as the org's would be.
 * Throws NotImplementedError (501) and NotFoundError (404) as resolveRuleset does.
 */
export function builtinRuleset(analyzer: Analyzer, variant: string | null): ResolvedRuleset {
  if (!analyzer.defaultRuleVariant || !analyzer.ruleVariants || analyzer.ruleVariants.length === 0) {
    throw new NotImplementedError(`Analyzer '${analyzer.name}' has no rules`);
  }
  const chosen = variant ?? analyzer.defaultRuleVariant;
  if (!analyzer.ruleVariants.includes(chosen)) throw new NotFoundError(`Analyzer '${analyzer.name}' has no rule file for type '${chosen}'`);
  const text = composeRuleset(loadBuiltinRuleset(analyzer.name, chosen), []);
  return { analyzer: analyzer.name, variant: chosen, text, digest: rulesetDigest(text) };
}

export class ChecksOnlyRun {
  /** The namespace's resources in ingest order (the first occurrence of a hash keeps its place). */
  readonly #resources = new Map<string, HeldResource>();
  readonly #rulesets = new Map<string, ResolvedRuleset>();

  /**
   * `namespace`: the one namespace every body goes to (422 when malformed or reserved, as
   * ingest-service.ts assertNamespace); `maxInputBytes`: server.max_input_size_mb in bytes.
   */
  constructor(
    private readonly analyzers: AnalyzerRegistry,
    private readonly namespace: string,
    private readonly maxInputBytes: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * POST /{analyzer_name}/{namespace}/analyze (`analyzerName`) or /{namespace}/analyze/auto
   * (null) with no model (analysis-api.md "Server-side analysis"): splits `raw`, runs the checks
   * of every unit not already in the namespace, and returns the finished job. Throws the
   * AppErrors the endpoint answers with: 413 (size), 404 (analyzer), 501 (no ingestion or no
   * rules), 422 (namespace, empty body, a rule_type that is not a variant, nothing matched).
   */
  analyse(analyzerName: string | null, raw: string, ruleType: string | null): ChecksOnlyJob {
    if (Buffer.byteLength(raw, 'utf8') > this.maxInputBytes) {
      throw new PayloadTooLargeError(`raw_input exceeds server.max_input_size_mb (${this.maxInputBytes / (1024 * 1024)} MB)`);
    }
    let units: AnalysisUnit[];
    if (analyzerName !== null) {
      const analyzer = this.analyzers.get(analyzerName);
      if (!analyzer) throw new NotFoundError(`Unknown analyzer '${analyzerName}'`);
      if (!analyzer.ingest) throw new NotImplementedError(`Analyzer '${analyzer.name}' has no ingestion`);
      assertRuleVariant(analyzer, ruleType);
      assertNamespace(this.namespace);
      assertNotEmpty(raw);
      units = analyzer.ingest(raw).map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: analyzer.name } }));
      assertUnitsFound(analyzer.name, units);
    } else {
      assertNamespace(this.namespace);
      assertNotEmpty(raw);
      units = autoRoute(raw, this.analyzers.list(), () => true).units;
    }
    // As the resource store records them: one resource per hash, the last unit's content at the first one's place.
    const unique = [...new Map(units.map((u) => [u.hash, u])).values()];
    for (const unit of unique) {
      if (this.#resources.has(unit.hash)) continue; // analysed with the same rules already: skipped, counted
      this.#resources.set(unit.hash, this.#check(unit, analyzerName === null ? null : ruleType));
    }
    const count = unique.length;
    return { job_id: randomUUID(), status: 'done', resource_count: count, processed_count: count, total_count: count, quota_exceeded: false };
  }

  /** The unit's resource with the payload run-job.ts stores for it when there is no provider. */
  #check(unit: AnalysisUnit, ruleType: string | null): HeldResource {
    const name = String(unit.metadata.analyzer ?? 'unknown');
    const analyzer = this.analyzers.get(name);
    if (!analyzer) throw new AppError(404, `Unknown analyzer '${name}'`);
    const resource = { value: { type: unit.type, name: unit.name, action: unit.action }, metadata: stored({ ...unit.metadata }) };
    // resourceRuleset's rules (analysis/ruleset-service.ts), without the selected text a model would be sent.
    const rules = selectRuleDefs(this.#ruleset(analyzer, unitRuleVariant(analyzer, resource, ruleType)).text, {
      ...resource.value,
      metadata: resource.metadata,
    });
    // The metadata went through the store's JSON once above; the rest of the unit goes now.
    const { metadata: _, ...rest } = unit;
    const asStored: AnalysisUnit = { ...stored(rest), action: unit.action as UnitAction, metadata: resource.metadata };
    const payload = deterministicPayload(runChecks(rules, asStored), asStored, rules.filter((r) => r.check !== null).length);
    return { hash: unit.hash, analyzer: analyzer.name, ...resource, analysis: stored(payload) };
  }

  /** builtinRuleset, once per (analyzer, variant) of the run. */
  #ruleset(analyzer: Analyzer, variant: string | null): ResolvedRuleset {
    const key = `${analyzer.name}\u0000${variant ?? ''}`;
    let ruleset = this.#rulesets.get(key);
    if (!ruleset) this.#rulesets.set(key, (ruleset = builtinRuleset(analyzer, variant)));
    return ruleset;
  }

  /**
   * The report input of the namespace (report/report-input.ts loadNamespaceReportData): the
   * statuses are the triage records' first ones (findings/triage.ts recordTriage: a LOW
   * confidence finding needs review, any other is open). Throws NotFoundError (404) before any body.
   */
  #input(includeSuppressed: boolean): ReportInput {
    if (this.#resources.size === 0) throw new NotFoundError(`Namespace '${this.namespace}' not found`);
    return {
      namespace: this.namespace,
      generatedAt: this.now().toISOString(),
      includeSuppressed,
      report_html_url: null,
      dashboard_url: null,
      quota_exceeded: false,
      job: null,
      resources: [...this.#resources.values()].map((r) => {
        const statuses = new Map<string, 'open' | 'needs_review'>();
        for (const f of r.analysis.findings) {
          if (f.rule_id !== NO_FINDINGS_RULE_ID && !statuses.has(f.rule_id)) statuses.set(f.rule_id, f.confidence === 'LOW' ? 'needs_review' : 'open');
        }
        return reportInputResource(r, (ruleId) => statuses.get(ruleId) ?? 'open', false);
      }),
    };
  }

  /** GET /{namespace}/report?format=markdown's report model (suppressed findings left out). */
  reportModel(): ReportModel {
    return buildReportModel(this.#input(false));
  }

  /**
   * GET /{namespace}/report?format=sarif (report/sarif-service.ts buildNamespaceSarif): every
   * finding, rule help from every rule variant of the analyzers with findings.
   */
  sarif(): Sarif.Log {
    const model = buildReportModel(this.#input(true));
    const units = new Map([...this.#resources.values()].map((r) => [r.hash, r.metadata]));
    // No triage yet: no notes to give as suppression justifications.
    return buildSarifLog({ model, units, notes: new Map(), rules: this.#rules(new Set(model.findings.map((f) => f.analyzer))), tool: SARIF_TOOL });
  }

  /** sarif-service.ts orgRules: every rule of every variant of `names`; the first definition of an id wins. */
  #rules(names: ReadonlySet<string>): Map<string, RuleDef> {
    const rules = new Map<string, RuleDef>();
    for (const name of [...names].sort()) {
      const analyzer = this.analyzers.get(name);
      if (!analyzer?.ruleVariants) continue;
      for (const variant of analyzer.ruleVariants) {
        let defs: readonly RuleDef[];
        try {
          defs = rulesetRules(this.#ruleset(analyzer, variant).text);
        } catch (error) {
          if (error instanceof AppError) continue;
          throw error;
        }
        for (const def of defs) if (!rules.has(def.rule_id)) rules.set(def.rule_id, def);
      }
    }
    return rules;
  }
}
