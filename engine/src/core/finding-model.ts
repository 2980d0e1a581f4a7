/**
 * The finding and severity model as plain types and constants (analysis-api.md "Analysis
 * payload (body of PUT)"), with no validation library: what code that only reads findings
 * imports. payload.ts holds the zod schemas that validate a submitted payload and infer these
 * same types; it re-exports everything here, so either module may be imported. Reading code
 * imports this one: a process that never validates a payload (the `planwarden` command's
 * checks-only run) then never loads zod.
 */

/** Finding severities, most severe first. */
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CONFIDENCES = ['HIGH', 'MEDIUM', 'LOW'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/** One finding of a unit's analysis payload. */
export type Finding = {
  title: string;
  severity: Severity;
  rule_id: string;
  risk: string;
  why_it_matters: string;
  suggested_next_step: string;
  confidence: Confidence;
  evidence: string[];
  resource_address: string;
  tags: string[];
};

/** The document submitted for one unit: a non-empty summary and at least one finding. */
export type AnalysisPayload = {
  summary: string;
  findings: Finding[];
};

export const SEVERITY_ORDER: readonly Severity[] = SEVERITIES;

/**
 * The rule id of the model's explicit all-clear: a unit with nothing to report is submitted
 * with one INFO finding under this id (the payload requires at least one finding). It creates
 * no triage record and reports list the unit as clean.
 */
export const NO_FINDINGS_RULE_ID = 'NO-FINDINGS';
