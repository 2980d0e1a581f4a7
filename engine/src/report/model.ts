import { SEVERITY_ORDER, type Confidence, type Severity } from '../core/finding-model';
import { findingPageUrl } from '../core/finding-links';
import { filterSteps, forEachStep, runSteps, runStepsInSlices, stableSortSteps, type Steps } from './sliced-steps';

/**
 * The report view model: the one object every report template (built-in or an org's own) sees
 * as its variables. analysis-api.md "Reports and report links", "Finding status".
 *
 * Every string in here is raw data (LLM-written or user-supplied); escaping is the templates'
 * job (`escape` for HTML, `md_cell` / `md_text` / `md_code` / `code_fence` for Markdown), so
 * the same model serves every format.
 */

/** Triage status of a finding (analysis-api.md "Finding status"). */
export type ReportFindingStatus = 'open' | 'needs_review' | 'acknowledged' | 'suppressed' | 'false_positive';

/** The model's explicit all-clear for a unit: not an issue, never shown as a finding. */
export const NO_FINDINGS_RULE_ID = 'NO-FINDINGS';

const HIDDEN_STATUSES: ReadonlySet<ReportFindingStatus> = new Set(['suppressed', 'false_positive']);
const STATUS_LABELS: Record<ReportFindingStatus, string> = {
  open: 'Open',
  needs_review: 'Needs review',
  acknowledged: 'Acknowledged',
  suppressed: 'Suppressed',
  false_positive: 'False positive',
};
const UNKNOWN_ANALYZER = '(unknown)';

export interface ReportInputFinding {
  rule_id: string;
  title: string;
  severity: Severity;
  confidence: Confidence;
  risk: string;
  why_it_matters: string;
  suggested_next_step: string;
  evidence: readonly string[];
  resource_address: string;
  tags: readonly string[];
  status: ReportFindingStatus;
}

export interface ReportInputResource {
  hash: string;
  type: string;
  name: string;
  action: string;
  analyzer: string | null;
  /** Analysis summary; null while the resource is not analysed yet. */
  summary: string | null;
  findings: readonly ReportInputFinding[];
  /** Only the checks' findings are stored: the model's review was asked for and failed (docs/decisions.md "Analysis layers"). */
  lacks_model_review?: boolean;
}

/** What the report reads of a stored or held resource (ResourceDoc, the CLI's checked unit). */
export interface ReportableResource {
  readonly hash: string;
  readonly analyzer: string | null;
  readonly value: { readonly type: string; readonly name: string; readonly action: string };
  readonly analysis: { readonly summary: string; readonly findings: readonly Omit<ReportInputFinding, 'status'>[] } | null;
}

/**
 * A resource as the report input's resource: each finding with its triage status (`statusOf`
 * its rule id), `lacksModelReview` as given. Shared by the server's report input
 * (report-input.ts) and the CLI's checks-only report (checks-only.ts).
 */
export function reportInputResource(
  r: ReportableResource,
  statusOf: (ruleId: string) => ReportInputFinding['status'],
  lacksModelReview: boolean,
): ReportInputResource {
  return {
    hash: r.hash,
    type: r.value.type,
    name: r.value.name,
    action: r.value.action,
    analyzer: r.analyzer,
    summary: r.analysis?.summary ?? null,
    findings: (r.analysis?.findings ?? []).map((f) => ({ ...f, status: statusOf(f.rule_id) })),
    lacks_model_review: lacksModelReview,
  };
}

export interface ReportInput {
  namespace: string;
  /** ISO 8601 timestamp. */
  generatedAt: string;
  includeSuppressed: boolean;
  resources: readonly ReportInputResource[];
  report_html_url?: string | null;
  dashboard_url?: string | null;
  quota_exceeded?: boolean;
  job?: { job_id: string; status: string } | null;
}

export interface ReportFinding {
  /** Stable anchor within one report (`finding-1`, ...), in display order. */
  id: string;
  rule_id: string;
  title: string;
  severity: Severity;
  /** Lower-case severity, for CSS classes. */
  severity_class: string;
  confidence: Confidence;
  risk: string;
  why_it_matters: string;
  suggested_next_step: string;
  evidence: string[];
  has_evidence: boolean;
  resource_address: string;
  resource_hash: string;
  resource_type: string;
  resource_name: string;
  action: string;
  analyzer: string;
  tags: string[];
  status: ReportFindingStatus;
  status_label: string;
  /** Status label for anything but `open`; null for open findings (no badge). */
  badge: string | null;
  /** True for suppressed / false_positive findings shown because include_suppressed is set. */
  hidden_by_default: boolean;
  /** The finding's own dashboard page (finding-links.ts), when the report has a dashboard link; else null. */
  dashboard_url: string | null;
}

export interface ReportSeverityCount {
  severity: Severity;
  severity_class: string;
  count: number;
}

export type ReportCounts = Record<Severity, number> & { total: number };

export interface ReportGroup {
  analyzer: string;
  findings: ReportFinding[];
  counts: ReportCounts;
}

export interface ReportResource {
  hash: string;
  type: string;
  name: string;
  /** `type.name`. */
  address: string;
  action: string;
  analyzer: string;
  summary: string | null;
  analysed: boolean;
  /** Analysed by the checks alone: the model's review failed (docs/decisions.md "Analysis layers"). */
  lacks_model_review: boolean;
  /** Findings shown in this report. */
  finding_count: number;
  /** Real findings hidden by their triage status. */
  hidden_count: number;
}

export interface ReportModel {
  namespace: string;
  generated_at: string;
  include_suppressed: boolean;
  /** The run stopped at the monthly spend cap: the report is partial. */
  quota_exceeded: boolean;
  job: { job_id: string; status: string } | null;
  /** http(s) URLs only (anything else becomes null), normalised by the URL parser. */
  report_html_url: string | null;
  dashboard_url: string | null;
  /** Resources come from more than one analyzer: templates add an Analyzer column. */
  multi_analyzer: boolean;
  analyzers: string[];
  /** Visible findings per severity, in severity order (every severity present, maybe 0). */
  severities: ReportSeverityCount[];
  counts: ReportCounts;
  /** All real findings (shown or hidden) per triage status. */
  status_counts: Record<ReportFindingStatus, number>;
  /** Real findings left out because of their status (0 when include_suppressed). */
  hidden_count: number;
  has_findings: boolean;
  /** Visible findings sorted by severity, then address, then rule id. */
  findings: ReportFinding[];
  /** Visible findings per analyzer (analyzer name order); one group when single-analyzer. */
  groups: ReportGroup[];
  resource_counts: { total: number; analysed: number; pending: number; clean: number; with_findings: number };
  resources: ReportResource[];
  /** Analysed resources with no real finding (none, or only the NO-FINDINGS all-clear). */
  clean_resources: ReportResource[];
  pending_resources: ReportResource[];
  /** Analysed resources that hold only their checks' findings because the model's review failed. */
  unreviewed_resources: ReportResource[];
}

/**
 * A resource's address: its name when the name is already an address of that type (a Terraform
 * unit is named `azurerm_public_ip.example`, or `module.net.azurerm_public_ip.example`), else
 * `type.name` (a unit named by its file or object only).
 */
function resourceAddress(type: string, name: string): string {
  return name.startsWith(`${type}.`) || name.includes(`.${type}.`) ? name : `${type}.${name}`;
}

/**
 * Build the report view model from a namespace's resources and their finding records.
 *
 * Takes `ReportInput` (resources with their analysis summary and findings, each finding
 * carrying its triage status). Hides `suppressed` / `false_positive` findings unless
 * `includeSuppressed`; keeps `acknowledged` (and any non-open status) visible with a `badge`;
 * drops `NO-FINDINGS` pseudo-findings (the LLM's all-clear) so such resources count as clean;
 * sorts findings by severity, address, rule id; groups them by analyzer. Pure; throws nothing.
 * In one go: for the in-process CLI and small inputs; the server uses buildReportModelInSlices.
 * Spec: analysis-api.md "Reports and report links".
 */
export function buildReportModel(input: ReportInput): ReportModel {
  return runSteps(reportModelSteps(input));
}

/**
 * buildReportModel's model, equal to it, built in slices of about `budgetMs` (default 8) with a
 * turn of the event loop between them (sliced-steps.ts): a namespace of thousands of resources
 * would otherwise hold the server for hundreds of milliseconds. Throws nothing.
 */
export function buildReportModelInSlices(input: ReportInput, budgetMs?: number): Promise<ReportModel> {
  return runStepsInSlices(reportModelSteps(input), budgetMs);
}

/** The one implementation of both: `yield`s where the work may pause. */
function* reportModelSteps(input: ReportInput): Steps<ReportModel> {
  const dashboardUrl = safeUrl(input.dashboard_url);
  // Each finding is made once, its `id` first (the key order templates see) and set after the sort.
  const findings: ReportFinding[] = [];
  const resources: ReportResource[] = [];
  const statusCounts: Record<ReportFindingStatus, number> = {
    open: 0,
    needs_review: 0,
    acknowledged: 0,
    suppressed: 0,
    false_positive: 0,
  };
  let hiddenCount = 0;
  const analyzerSet = new Set<string>();

  for (const [index, r] of input.resources.entries()) {
    if (index % 64 === 63) yield;
    const analyzer = r.analyzer?.trim() ? r.analyzer : UNKNOWN_ANALYZER;
    analyzerSet.add(analyzer);
    const address = resourceAddress(r.type, r.name);
    const real = r.findings.filter((f) => !isAllClear(f));
    let shown = 0;
    let hidden = 0;
    for (const f of real) {
      const status: ReportFindingStatus = f.status in STATUS_LABELS ? f.status : 'open';
      statusCounts[status] += 1;
      const hiddenByDefault = HIDDEN_STATUSES.has(status);
      if (hiddenByDefault && !input.includeSuppressed) {
        hidden += 1;
        continue;
      }
      shown += 1;
      findings.push({
        id: '',
        rule_id: f.rule_id,
        title: f.title,
        severity: f.severity,
        severity_class: String(f.severity)
          .toLowerCase()
          .replace(/[^a-z]/g, ''),
        confidence: f.confidence,
        risk: f.risk,
        why_it_matters: f.why_it_matters,
        suggested_next_step: f.suggested_next_step,
        evidence: [...f.evidence],
        has_evidence: f.evidence.length > 0,
        resource_address: f.resource_address.trim() ? f.resource_address : address,
        resource_hash: r.hash,
        resource_type: r.type,
        resource_name: r.name,
        action: r.action,
        analyzer,
        tags: [...f.tags],
        status,
        status_label: STATUS_LABELS[status],
        badge: status === 'open' ? null : STATUS_LABELS[status],
        hidden_by_default: hiddenByDefault,
        dashboard_url: findingPageUrl(dashboardUrl, input.namespace, r.hash, f.rule_id),
      });
    }
    hiddenCount += hidden;
    resources.push({
      hash: r.hash,
      type: r.type,
      name: r.name,
      address,
      action: r.action,
      analyzer,
      summary: r.summary,
      analysed: r.summary !== null || r.findings.length > 0,
      lacks_model_review: r.lacks_model_review === true,
      finding_count: shown,
      hidden_count: hidden,
    });
  }

  const numbered = yield* stableSortSteps(findings, compareFindings);
  yield* forEachStep(numbered, (f, i) => {
    f.id = `finding-${i + 1}`;
  });
  const analyzers = [...analyzerSet].sort();
  const groups: ReportGroup[] = [];
  for (const analyzer of analyzers) {
    const inGroup = yield* filterSteps(numbered, (f) => f.analyzer === analyzer);
    if (inGroup.length > 0) groups.push({ analyzer, findings: inGroup, counts: countBySeverity(inGroup) });
  }
  const counts = countBySeverity(numbered);
  const isClean = (r: ReportResource) => r.analysed && r.finding_count === 0 && r.hidden_count === 0;
  const clean = yield* filterSteps(resources, isClean);
  const pending = yield* filterSteps(resources, (r) => !r.analysed);
  const withFindings = yield* filterSteps(resources, (r) => r.finding_count > 0 || r.hidden_count > 0);
  const unreviewed = yield* filterSteps(resources, (r) => r.analysed && r.lacks_model_review);

  return {
    namespace: input.namespace,
    generated_at: input.generatedAt,
    include_suppressed: input.includeSuppressed,
    quota_exceeded: input.quota_exceeded === true,
    job: input.job ? { job_id: input.job.job_id, status: input.job.status } : null,
    report_html_url: safeUrl(input.report_html_url),
    dashboard_url: dashboardUrl,
    multi_analyzer: analyzers.length > 1,
    analyzers,
    severities: SEVERITY_ORDER.map((severity) => ({
      severity,
      severity_class: severity.toLowerCase(),
      count: counts[severity],
    })),
    counts,
    status_counts: statusCounts,
    hidden_count: hiddenCount,
    has_findings: numbered.length > 0,
    findings: numbered,
    groups,
    resource_counts: {
      total: resources.length,
      analysed: resources.length - pending.length,
      pending: pending.length,
      clean: clean.length,
      with_findings: withFindings.length,
    },
    resources,
    clean_resources: clean,
    pending_resources: pending,
    unreviewed_resources: unreviewed,
  };
}

function isAllClear(f: ReportInputFinding): boolean {
  return f.rule_id.trim().toUpperCase() === NO_FINDINGS_RULE_ID;
}

function severityRank(s: Severity): number {
  const i = SEVERITY_ORDER.indexOf(s);
  return i === -1 ? SEVERITY_ORDER.length : i;
}

function compareFindings(a: ReportFinding, b: ReportFinding): number {
  return severityRank(a.severity) - severityRank(b.severity) || compareText(a.resource_address, b.resource_address) || compareText(a.rule_id, b.rule_id);
}

// Code-point order, not locale order: reports must sort the same on every host.
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function countBySeverity(findings: readonly ReportFinding[]): ReportCounts {
  const counts = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, INFO: 0, total: 0 };
  for (const f of findings) {
    if (f.severity in counts) counts[f.severity] += 1;
    counts.total += 1;
  }
  return counts;
}

/** Links end up in href attributes and Markdown link targets: only well-formed http(s). */
function safeUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
