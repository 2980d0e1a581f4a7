import { randomUUID } from 'node:crypto';
import type { EngineContext } from '../context/engine-context';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import type { AnalysisDeps } from './analyze-service';
import { CHECKS_ONLY_BACKEND, requireCatalogueModel, resolveApiKey } from './analyze-service';
import { TERMINAL_JOB_STATUSES, type JobDoc, type JobStatus, type JobSummary } from './job-store';
import type { LlmBackend } from '../llm/types';
import { lacksModelReview, type ResourceDoc } from '../ingest/resource-store';

/** analysis-api.md "Job" (the full shape of GET /jobs/{job_id}). */
export function presentJob(job: JobSummary) {
  return {
    job_id: job.job_id,
    org_id: job.org_id,
    namespace: job.namespace,
    analyzer: job.analyzer,
    analyzers_used: job.analyzers_used,
    detections: job.detections,
    status: job.status,
    mode: job.mode,
    trigger: job.trigger,
    external_ref: job.external_ref,
    created_at: job.created_at,
    updated_at: job.updated_at,
    finished_at: job.finished_at,
    resource_count: job.resource_count,
    processed_count: job.processed_count,
    total_count: job.total_count,
    current_resource: job.current_resource,
    quota_exceeded: job.quota_exceeded,
    error: job.error,
    llm_backend: job.llm_backend,
    model: job.model,
    rule_type: job.rule_type,
    retry_of: job.retry_of,
    // Our addition (docs/decisions.md "Runs compared"): null until the run loop ends, and for retries.
    runs_compared: job.runs_compared ?? null,
  };
}

/** The list item omits analyzers_used, detections, processed_count, total_count and current_resource. */
export function presentJobListItem(job: JobSummary) {
  const { analyzers_used, detections, processed_count, total_count, current_resource, ...rest } = presentJob(job);
  void analyzers_used;
  void detections;
  void processed_count;
  void total_count;
  void current_resource;
  return rest;
}

/** GET /jobs/{job_id}. Throws NotFoundError for an unknown job or another org's. */
export async function getJob(ctx: EngineContext, orgId: string, jobId: string): Promise<JobDoc> {
  const job = await ctx.stores.jobs.get(orgId, jobId);
  if (!job) throw new NotFoundError('Job not found');
  return job;
}

/** GET /jobs: newest first, `{jobs, total}`. */
export async function listJobs(ctx: EngineContext, orgId: string, status: JobStatus | undefined, page: { limit: number; offset: number }) {
  const { jobs, total } = await ctx.stores.jobs.list(orgId, status, page);
  return { jobs: jobs.map(presentJobListItem), total };
}

/**
 * POST /jobs/{job_id}/cancel: queued or running async jobs become cancelled at once; a running
 * one stops after the units in flight. Throws NotFoundError, ConflictError (terminal or sync).
 */
export async function cancelJob(ctx: EngineContext, orgId: string, jobId: string) {
  const job = await getJob(ctx, orgId, jobId);
  if (job.mode === 'sync') throw new ConflictError('A sync job cannot be cancelled');
  const now = ctx.now().toISOString();
  const cancelled = await ctx.stores.jobs.transition(orgId, jobId, ['queued', 'running'], { status: 'cancelled', finished_at: now, updated_at: now });
  if (!cancelled) throw new ConflictError(`Job is already ${job.status}`);
  return { job_id: jobId, status: 'cancelled' as const, was: job.status as 'queued' | 'running' };
}

/** ConflictError (409) when a retry of `job` is still queued or running. */
async function assertNoRetryInFlight(ctx: EngineContext, job: JobDoc): Promise<void> {
  if (!job.active_retry) return;
  const previous = await ctx.stores.jobs.get(job.org_id, job.active_retry);
  if (previous && !TERMINAL_JOB_STATUSES.includes(previous.status)) {
    throw new ConflictError(`A retry of this job is already ${previous.status}: job ${previous.job_id}`);
  }
}

/**
 * POST /jobs/{job_id}/retry: a new async job over the original's still-unanalysed resources,
 * including those holding only their checks' findings because the model's review failed.
 * At most one retry of a job is in flight (queued or running): the new job's id is reserved on
 * the original by an atomic compare-and-set before it is created, so of two concurrent retries
 * exactly one answers 202 and the other 409, and no unit is analysed (or billed) twice.
 * Throws NotFoundError, ConflictError (nothing left, not resumable, code-host job, a retry in
 * flight), ValidationError (nothing was ingested), BadRequestError (key, catalogue), 402 (cap).
 */
export async function retryJob(deps: AnalysisDeps, orgId: string, jobId: string, inlineKey: string | null | undefined) {
  const { ctx } = deps;
  const job = await getJob(ctx, orgId, jobId);
  if (job.trigger === 'codehost_webhook') throw new ConflictError('A code-host job cannot be retried; push a new commit to re-trigger it');
  const resumable = job.status === 'failed' || job.status === 'cancelled' || (job.status === 'done' && job.quota_exceeded);
  if (!resumable) throw new ConflictError(`Job is ${job.status}: nothing to resume`);
  if (!Array.isArray(job.hashes) || job.hashes.length === 0) throw new ValidationError('Nothing was ingested by this job');
  await assertNoRetryInFlight(ctx, job);
  // A checks-only job (no model) is retried as one: no catalogue model, no key, no budget.
  const checksOnly = job.llm_backend === CHECKS_ONLY_BACKEND;
  const resources = await ctx.stores.resources.getMany(orgId, job.hashes);
  // Units whose checks' findings are stored but whose model's review failed count as unanalysed:
  // the retry runs only their model part (docs/decisions.md "Analysis layers").
  const unanalysed = (r: ResourceDoc) => r.analysis === null || (!checksOnly && lacksModelReview(r));
  const pending = new Set(resources.filter(unanalysed).map((r) => r.hash));
  const hashes = job.hashes.filter((h) => pending.has(h));
  if (hashes.length === 0) throw new ConflictError('Nothing left to analyse');
  if (!checksOnly) await requireCatalogueModel(ctx, job.llm_backend, job.model);
  const key = checksOnly ? { apiKey: null, source: 'none' as const } : await resolveApiKey(ctx, orgId, job.llm_backend as LlmBackend, inlineKey);
  if (!checksOnly) await deps.assertBudget?.(orgId);
  const retryId = randomUUID();
  if (!(await ctx.stores.jobs.claimRetrySlot(orgId, jobId, job.active_retry ?? null, retryId))) {
    throw new ConflictError('A retry of this job is already in flight');
  }
  const retry = await ctx.stores.jobs
    .create(
      {
        job_id: retryId,
        org_id: orgId,
        namespace: job.namespace,
        analyzer: job.analyzer,
        analyzers_used: job.analyzers_used,
        detections: job.detections,
        mode: 'async',
        trigger: 'retry',
        external_ref: null,
        resource_count: hashes.length,
        total_count: hashes.length,
        llm_backend: job.llm_backend,
        model: job.model,
        rule_type: job.rule_type,
        retry_of: job.job_id,
        hashes,
        key_source: key.source,
      },
      ctx.now().toISOString(),
    )
    .catch(async (error: unknown) => {
      await ctx.stores.jobs.releaseRetrySlot(orgId, jobId, retryId);
      throw error;
    });
  deps.enqueue(retry, key.apiKey);
  return { job_id: retry.job_id, status: 'queued' as const, retry_of: job.job_id };
}
