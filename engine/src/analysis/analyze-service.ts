import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { BadRequestError, PayloadTooLargeError, ValidationError, NotImplementedError, UpstreamError } from '../core/errors';
import { LLM_BACKENDS, type LlmBackend, type LlmProvider } from '../llm/types';
import { requireAnalyzer } from './analyzer-access';
import { recordIngest } from './ingest-service';
import type { JobDoc } from './job-store';
import { runJob, type RunSettings } from './run-job';
import { runUnderSyncLease, syncLeaseFields, type SyncLease } from './sync-lease';
import { assertRuleVariant } from './ruleset-service';

/**
 * analysis-api.md "Server-side analysis" request body. `llm_backend` omitted (with `model`) =
 * no model: only the rules' deterministic checks run, inline (docs/decisions.md "Checks only").
 */
export const AnalyzeRequestSchema = z.object({
  llm_backend: z.enum(LLM_BACKENDS as [LlmBackend, ...LlmBackend[]]).optional(),
  model: z.string().min(1).optional(),
  api_key: z.string().min(1).nullable().optional(),
  raw_input: z.string(),
  rule_type: z.string().min(1).nullable().optional(),
  // An addition to the spec's body (docs/decisions.md "Runs compared"): record the input in the
  // namespace's current run, so one command's several requests are one run.
  continue_run: z.boolean().optional(),
});
export type AnalyzeRequest = z.infer<typeof AnalyzeRequestSchema>;

/** `llm_backend` and `model` recorded on a job that ran the deterministic checks only. */
export const CHECKS_ONLY_BACKEND = 'none';

/** What server-side analysis needs beyond the engine context. */
export interface AnalysisDeps {
  readonly ctx: EngineContext;
  readonly settings: () => RunSettings & { max_input_size_mb: number; sync_analysis_max_units: number };
  /** Builds a provider client for one job (base URLs come from configuration). */
  readonly providerFor: (backend: LlmBackend, apiKey: string | null) => LlmProvider;
  /** Hands an async job to the background runner; an inline key stays in memory only. */
  readonly enqueue: (job: JobDoc, apiKey: string | null) => void;
  /** Throws PaymentRequiredError (402) when the org may not spend (monthly cap); default: never. */
  readonly assertBudget?: (orgId: string) => Promise<void>;
  readonly budgetExhausted?: (orgId: string) => Promise<boolean>;
  /** Backoff sleep of the retry loop (tests inject a zero-delay one). */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * The namespace's Markdown report after a sync analysis (report/namespace-report.ts, wired by
   * the composition root: the report layer sits above this one, docs/architecture.md "Layers").
   */
  readonly renderReport: (orgId: string, namespace: string, job: SyncReportJob) => Promise<string>;
  /** The lease a sync run holds, so a run whose process died is failed at the next start (analysis/sync-lease.ts). */
  readonly syncLease?: SyncLease;
}

/** The finished job a sync analysis reports on (analysis-api.md "Server-side analysis", 200 body). */
export interface SyncReportJob {
  readonly job_id: string;
  readonly status: JobDoc['status'];
  readonly quota_exceeded: boolean;
}

/**
 * Resolves the key for a job: the caller's inline key (never stored), else the org's stored
 * credential; ollama needs none. Throws BadRequestError (400) when a key is required and absent.
 */
export async function resolveApiKey(ctx: EngineContext, orgId: string, backend: LlmBackend, inline: string | null | undefined) {
  if (inline) return { apiKey: inline, source: 'inline' as const };
  const stored = await ctx.stores.credentials.reveal(orgId, backend);
  if (stored) return { apiKey: stored, source: 'stored' as const };
  if (backend === 'ollama') return { apiKey: null, source: 'none' as const };
  throw new BadRequestError(`No api_key given and none stored for provider '${backend}'`);
}

/** The enabled catalogue row for (backend, model). Throws BadRequestError (400) when absent or disabled. */
export async function requireCatalogueModel(ctx: EngineContext, backend: string, model: string) {
  const row = await ctx.stores.models.get(backend, model);
  if (!row?.enabled) throw new BadRequestError(`Model '${model}' of backend '${backend}' is not on the allowed-models catalogue`);
  return row;
}

/**
 * POST /{analyzer_name}/{namespace}/analyze and POST /{namespace}/analyze/auto
 * (analysis-api.md "Server-side analysis"). `analyzerName` null = auto-routing.
 * Ingests, then analyses inline (≤ sync_analysis_max_units units: returns `{status: 200, body}`)
 * or queues a background job (`{status: 202, body: {job_id, status: 'queued'}}`); both carry
 * `ingested: {resource_count, analyzers_used}` (for the ingest span, not the response body).
 * Throws 400 (key, catalogue), 402 (cap), 404 (analyzer), 413 (size), 422 (body, a rule_type
 * that is not a variant of the analyzer, nothing matched), 501 (no ingestion), 502 with `job_id` when the inline run fails.
 */
export async function startAnalysis(deps: AnalysisDeps, orgId: string, analyzerName: string | null, namespace: string, body: unknown) {
  const { ctx } = deps;
  const parsed = AnalyzeRequestSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  const request = parsed.data;
  if (request.llm_backend !== undefined && request.model === undefined) throw new ValidationError('model: required when llm_backend is given');
  const backend = request.llm_backend ?? null;
  const settings = deps.settings();
  if (Buffer.byteLength(request.raw_input, 'utf8') > settings.max_input_size_mb * 1024 * 1024) {
    throw new PayloadTooLargeError(`raw_input exceeds server.max_input_size_mb (${settings.max_input_size_mb} MB)`);
  }
  if (analyzerName !== null) {
    const analyzer = await requireAnalyzer(ctx, orgId, analyzerName);
    if (!analyzer.ingest) throw new NotImplementedError(`Analyzer '${analyzer.name}' has no ingestion`);
    assertRuleVariant(analyzer, request.rule_type ?? null);
  }
  // No model: nothing to price, no key, no budget; the checks run inline whatever the unit count.
  const catalogue = backend ? await requireCatalogueModel(ctx, backend, request.model!) : { input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 };
  const key = backend ? await resolveApiKey(ctx, orgId, backend, request.api_key) : { apiKey: null, source: 'none' as const };
  if (backend) await deps.assertBudget?.(orgId);

  const routed = await recordIngest(ctx, orgId, analyzerName, namespace, request.raw_input, { continueRun: request.continue_run === true });
  const hashes = [...new Set(routed.hashes)];
  const sync = backend === null || hashes.length <= settings.sync_analysis_max_units;
  const job = await ctx.stores.jobs.create(
    {
      org_id: orgId,
      namespace,
      analyzer: analyzerName ?? 'auto',
      analyzers_used: routed.analyzers_used,
      detections: routed.detections,
      mode: sync ? 'sync' : 'async',
      status: sync ? 'running' : 'queued',
      trigger: 'api',
      external_ref: null,
      resource_count: hashes.length,
      total_count: hashes.length,
      llm_backend: backend ?? CHECKS_ONLY_BACKEND,
      model: request.model ?? CHECKS_ONLY_BACKEND,
      rule_type: analyzerName === null ? null : (request.rule_type ?? null),
      retry_of: null,
      hashes,
      run_id: routed.run_id,
      key_source: key.source,
      // Created holding its lease (one write): a crash before the run starts is failed at the next start.
      ...(sync ? syncLeaseFields(ctx, deps.syncLease) : {}),
    },
    ctx.now().toISOString(),
  );

  // What was ingested, for the caller's ingest span (identity-api.md "Span"): the 202 body does not say.
  const ingested = { resource_count: hashes.length, analyzers_used: analyzerName === null ? routed.analyzers_used : [analyzerName] };
  if (!sync) {
    deps.enqueue(job, key.apiKey);
    return { status: 202, body: { job_id: job.job_id, status: 'queued' as const }, ingested };
  }
  const final = await runUnderSyncLease(ctx, job, deps.syncLease, () =>
    runJob(ctx, job, {
      provider: backend ? deps.providerFor(backend, key.apiKey) : null,
      pricing: catalogue,
      settings,
      budgetExhausted: deps.budgetExhausted ? () => deps.budgetExhausted!(orgId) : undefined,
      sleep: deps.sleep,
    }),
  );
  if (final.status === 'failed') {
    throw new UpstreamError(final.error ?? 'LLM analysis failed', { job_id: final.job_id });
  }
  const reportMarkdown = await deps.renderReport(orgId, namespace, { job_id: final.job_id, status: final.status, quota_exceeded: final.quota_exceeded });
  const response: Record<string, unknown> = {
    job_id: final.job_id,
    report_markdown: reportMarkdown,
    resource_count: final.resource_count,
    quota_exceeded: final.quota_exceeded,
  };
  if (analyzerName === null) {
    response.analyzers_used = final.analyzers_used;
    response.detections = final.detections;
  }
  return { status: 200, body: response, ingested };
}
