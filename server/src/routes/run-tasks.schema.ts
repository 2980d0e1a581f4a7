import { z } from 'zod';
import { SeveritySchema } from '@planwarden/engine/core/payload';
import { LLM_BACKENDS, type LlmBackend } from '@planwarden/engine/llm/types';

/**
 * PUT /orgs/{org_id}/integrations/run-task body (docs/decisions.md "Run tasks"): the HMAC key
 * is write-only (omitted or null keeps the stored one), `gate_severity` defaults to HIGH (the
 * commit-status gate of analysis-api.md).
 */
export const RunTaskConfigSchema = z
  .object({
    hmac_key: z.string().min(16).max(512).nullable().optional(),
    llm_backend: z.enum(LLM_BACKENDS as [LlmBackend, ...LlmBackend[]]),
    model: z.string().min(1).max(200),
    gate_severity: SeveritySchema.default('HIGH'),
  })
  .strict();

/**
 * The HCP Terraform run task request (payload_version 1), the fields Planwarden reads; other
 * fields HCP sends are ignored. `plan_json_api_url` is absent at the pre_plan stage.
 */
export const RunTaskRequestSchema = z.object({
  payload_version: z.number().int(),
  access_token: z.string().min(1),
  stage: z.string().min(1),
  plan_json_api_url: z.string().min(1).nullable().optional(),
  task_result_callback_url: z.string().min(1),
  task_result_enforcement_level: z.string().optional(),
  run_id: z.string().min(1),
  organization_name: z.string().nullable().optional(),
  workspace_name: z.string().nullable().optional(),
});
