import type { EngineContext } from '../context/engine-context';
import type { CallRecord } from '../llm/analyse-unit';
import { costUsd } from '../llm/cost';

/** The job facts metering needs. */
export interface MeteredJob {
  readonly org_id: string;
  readonly job_id: string;
  readonly llm_backend: string;
  readonly model: string;
}

/** Catalogue prices at call time (USD per million tokens). */
export interface CallPricing {
  readonly input_price_per_1m_usd: number;
  readonly output_price_per_1m_usd: number;
}

/**
 * Meters the provider calls made for one unit of a job (analysis-api.md "Usage document": a
 * usage event per call, a metered resource per successful call) so that a job bills each unit
 * at most once, whatever dies in between:
 * - a unit whose successful call is already metered for this job is not billed again (the run
 *   died after metering it and before saving its analysis, and the resumed run analysed it
 *   again); returns 0 then;
 * - otherwise the calls are numbered after the unit's earlier attempts in this job and stored
 *   under the idempotency key `<job_id>:<resource_hash>:<attempt>`, so the same call metered
 *   twice (two runners of one job) is stored once.
 * Returns how many usage events were stored.
 */
export async function meterUnitCalls(
  ctx: EngineContext,
  job: MeteredJob,
  resourceHash: string,
  calls: readonly Pick<CallRecord, 'attempt' | 'inputTokens' | 'outputTokens' | 'durationMs' | 'error'>[],
  pricing: CallPricing,
): Promise<number> {
  if (calls.length === 0) return 0;
  const prior = await ctx.stores.llmCalls.forUnit(job.org_id, job.job_id, resourceHash);
  if (prior.some((c) => c.error === null)) {
    ctx.log.info({ job_id: job.job_id, org_id: job.org_id, resource_hash: resourceHash }, 'unit already billed for this job; calls not metered again');
    return 0;
  }
  const offset = prior.reduce((max, c) => Math.max(max, c.attempt), 0);
  const now = ctx.now().toISOString();
  return ctx.stores.llmCalls.record(
    job.org_id,
    calls.map((c) => ({
      job_id: job.job_id,
      resource_hash: resourceHash,
      llm_backend: job.llm_backend,
      model: job.model,
      attempt: offset + c.attempt,
      input_tokens: c.inputTokens,
      output_tokens: c.outputTokens,
      cost_usd: costUsd(pricing, c.inputTokens, c.outputTokens),
      duration_ms: c.durationMs,
      error: c.error,
      created_at: now,
      idempotency_key: `${job.job_id}:${resourceHash}:${offset + c.attempt}`,
    })),
  );
}
