import { createHmac, timingSafeEqual } from 'node:crypto';
import { requireCatalogueModel, resolveApiKey } from '../analysis/analyze-service';
import type { Severity } from '../core/payload';
import type { EngineContext } from '../context/engine-context';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../core/errors';
import type { LlmBackend } from '../llm/types';
import type { RunTaskConfigDoc } from './run-task-store';

/**
 * Per-org HCP Terraform run-task configuration (docs/decisions.md "Run tasks"):
 * `PUT/GET/DELETE /orgs/{org_id}/integrations/run-task`, and the signature check of
 * `POST /run-tasks/{org_id}` (HCP Terraform "Run tasks integration": `X-TFC-Task-Signature`
 * is the hex HMAC-SHA512 of the raw body under the task's HMAC key).
 */

export interface RunTaskConfigInput {
  /** Write-only; null/omitted keeps the stored key (required when none is stored). */
  readonly hmac_key?: string | null;
  readonly llm_backend: LlmBackend;
  readonly model: string;
  readonly gate_severity: Severity;
}

/** The presented config: never the key, only `has_hmac_key`; `endpoint_path` is what HCP calls. */
export function presentRunTask(doc: RunTaskConfigDoc) {
  return {
    llm_backend: doc.llm_backend,
    model: doc.model,
    gate_severity: doc.gate_severity,
    has_hmac_key: true,
    endpoint_path: `/api/v1/run-tasks/${encodeURIComponent(doc.org_id)}`,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

/**
 * Upserts the org's run-task config. The model must be on the catalogue and enabled (400), and
 * the org must have a stored LLM credential for the backend (400; ollama needs none): run-task
 * analyses never see an inline key. A first PUT without `hmac_key` is 400.
 */
export async function putRunTask(ctx: EngineContext, orgId: string, input: RunTaskConfigInput) {
  await requireCatalogueModel(ctx, input.llm_backend, input.model);
  await resolveApiKey(ctx, orgId, input.llm_backend, null);
  const existing = await ctx.stores.runTasks.get(orgId);
  const sealed = input.hmac_key ? ctx.stores.box.seal(input.hmac_key) : existing?.hmac_key_sealed;
  if (!sealed) throw new BadRequestError('hmac_key: required (HCP Terraform signs every run task request with it)');
  const doc = await ctx.stores.runTasks.put(
    orgId,
    {
      hmac_key_sealed: sealed,
      llm_backend: input.llm_backend,
      model: input.model,
      gate_severity: input.gate_severity,
    },
    ctx.now().toISOString(),
  );
  return presentRunTask(doc);
}

/** GET: the presented config; NotFoundError (404) when none. */
export async function getRunTask(ctx: EngineContext, orgId: string) {
  const doc = await ctx.stores.runTasks.get(orgId);
  if (!doc) throw new NotFoundError('No run task integration configured');
  return presentRunTask(doc);
}

/** DELETE: removes the config (HCP requests are then answered 404); NotFoundError (404) when none. */
export async function deleteRunTask(ctx: EngineContext, orgId: string) {
  if (!(await ctx.stores.runTasks.delete(orgId))) throw new NotFoundError('No run task integration configured');
  return { detail: 'Run task integration deleted' };
}

/** Hex HMAC-SHA512 of `raw` under `key` (the `X-TFC-Task-Signature` value). */
export function runTaskSignature(key: string, raw: Buffer | string): string {
  return createHmac('sha512', key).update(raw).digest('hex');
}

/**
 * Authenticates an incoming run-task request for `orgId`: NotFoundError (404) when the org has
 * no run-task config (an unknown org answers the same), UnauthorizedError (401) when the
 * signature header is missing or is not the HMAC-SHA512 of the raw body (constant-time compare).
 * Returns the org's config.
 */
export async function verifyRunTaskRequest(ctx: EngineContext, orgId: string, raw: Buffer, signature: string | undefined): Promise<RunTaskConfigDoc> {
  const config = await ctx.stores.runTasks.get(orgId);
  if (!config) throw new NotFoundError('No run task integration configured for this organization');
  if (!signature) throw new UnauthorizedError('Missing X-TFC-Task-Signature');
  const expected = Buffer.from(runTaskSignature(ctx.stores.box.open(config.hmac_key_sealed), raw), 'utf8');
  const given = Buffer.from(signature.trim().toLowerCase(), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthorizedError('Invalid X-TFC-Task-Signature');
  return config;
}
