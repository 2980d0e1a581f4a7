/**
 * The JSON Schema of the analysis payload a model must return (analysis-api.md "Analysis payload
 * (body of PUT)"), with `rule_id` an enum of the rules sent plus NO-FINDINGS (docs/decisions.md
 * "Rule ids"). One schema serves the three backends: OpenAI strict structured output
 * (`response_format: {type: 'json_schema', strict: true}`), an Anthropic tool's `input_schema`,
 * Ollama's `format`. It keeps to the subset OpenAI's strict mode accepts: every property
 * required, `additionalProperties: false`, no length or pattern keywords (the zod schema in
 * analysis/payload.ts still checks those on the way in).
 */
import { NO_FINDINGS_RULE_ID } from '../core/payload';

/** Name of the schema (OpenAI `json_schema.name`, Anthropic tool name). */
export const OUTPUT_SCHEMA_NAME = 'submit_analysis';

export interface OutputSchema {
  readonly name: string;
  readonly description: string;
  /** JSON Schema (draft 2020-12 subset) of the payload. */
  readonly schema: Record<string, unknown>;
  /** The rule ids `rule_id` may take (the rules sent, then NO-FINDINGS). */
  readonly ruleIds: readonly string[];
}

const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'];
const CONFIDENCES = ['HIGH', 'MEDIUM', 'LOW'];

/**
 * The output schema for a prompt whose ruleset declares `ruleIds` (duplicates dropped, order
 * kept, NO-FINDINGS appended). Pure: the same ids give the same schema, so the request prefix
 * stays cacheable.
 */
export function analysisOutputSchema(ruleIds: readonly string[]): OutputSchema {
  const ids = [...new Set([...ruleIds.filter((id) => id !== NO_FINDINGS_RULE_ID), NO_FINDINGS_RULE_ID])];
  const string = { type: 'string' };
  const finding = {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'severity', 'rule_id', 'risk', 'why_it_matters', 'suggested_next_step', 'confidence', 'evidence', 'resource_address', 'tags'],
    properties: {
      title: string,
      severity: { type: 'string', enum: SEVERITIES },
      rule_id: { type: 'string', enum: ids },
      risk: string,
      why_it_matters: string,
      suggested_next_step: string,
      confidence: { type: 'string', enum: CONFIDENCES },
      evidence: { type: 'array', items: string },
      resource_address: string,
      tags: { type: 'array', items: string },
    },
  };
  return {
    name: OUTPUT_SCHEMA_NAME,
    description: 'Submit the security analysis of the unit: a summary and at least one finding (NO-FINDINGS when no rule applies).',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['summary', 'findings'],
      properties: { summary: string, findings: { type: 'array', items: finding } },
    },
    ruleIds: ids,
  };
}
