import { z } from 'zod';
import { CONFIDENCES, SEVERITIES, type AnalysisPayload, type Confidence, type Finding, type Severity } from './finding-model';

/**
 * analysis-api.md "Analysis payload (body of PUT)": the document a client (or the server's own
 * LLM call) submits for one unit, as zod schemas. The types and constants live in
 * finding-model.ts (no zod) and are re-exported here.
 */
export { NO_FINDINGS_RULE_ID, SEVERITY_ORDER } from './finding-model';
export type { AnalysisPayload, Confidence, Finding, Severity } from './finding-model';

export const SeveritySchema = z.enum(SEVERITIES);
export const ConfidenceSchema = z.enum(CONFIDENCES);

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

export const AnalysisPayloadSchema = z.object({
  summary: z.string().trim().min(1, 'summary must not be empty'),
  findings: z.array(FindingSchema).min(1, 'findings must hold at least one finding'),
});

/** True when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The schemas validate exactly the model's types: a field changed on one side fails the type check.
const schemasMatchModel: [
  Same<z.infer<typeof SeveritySchema>, Severity>,
  Same<z.infer<typeof ConfidenceSchema>, Confidence>,
  Same<z.infer<typeof FindingSchema>, Finding>,
  Same<z.infer<typeof AnalysisPayloadSchema>, AnalysisPayload>,
] = [true, true, true, true];
void schemasMatchModel;
