import { z } from 'zod';

/**
 * analysis-api.md "Analysis payload (body of PUT)": the document a client (or the server's own
 * LLM call) submits for one unit.
 */
export const SeveritySchema = z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO']);
export type Severity = z.infer<typeof SeveritySchema>;
export const ConfidenceSchema = z.enum(['HIGH', 'MEDIUM', 'LOW']);
export type Confidence = z.infer<typeof ConfidenceSchema>;

export const FindingSchema = z.object({
  title: z.string().min(1),
  severity: SeveritySchema,
  rule_id: z.string().min(1),
  risk: z.string(),
  why_it_matters: z.string(),
  suggested_next_step: z.string(),
  confidence: ConfidenceSchema,
  evidence: z.array(z.string()),
  resource_address: z.string(),
  tags: z.array(z.string()),
});
export type Finding = z.infer<typeof FindingSchema>;

export const AnalysisPayloadSchema = z.object({
  summary: z.string().trim().min(1, 'summary must not be empty'),
  findings: z.array(FindingSchema).min(1, 'findings must hold at least one finding'),
});
export type AnalysisPayload = z.infer<typeof AnalysisPayloadSchema>;

export const SEVERITY_ORDER: readonly Severity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'];

/**
 * The rule id of the model's explicit all-clear: a unit with nothing to report is submitted
 * with one INFO finding under this id (the payload requires at least one finding). It creates
 * no triage record and reports list the unit as clean.
 */
export const NO_FINDINGS_RULE_ID = 'NO-FINDINGS';
