import { startAnalysis, type AnalysisDeps } from '../analysis/analyze-service';
import { TERMINAL_JOB_STATUSES, type JobDoc } from '../analysis/job-store';
import type { EngineContext } from '../context/engine-context';
import { egressFetch, STRICT_EGRESS, assertEgressAllowed } from '../net/egress';
import { mintReportLink } from '../report/report-link-service';
import { evaluateGate, gateCounts } from './gate';
import type { RunTaskConfigDoc } from './run-task-store';

/**
 * The work behind `POST /run-tasks/{org_id}` (HCP Terraform "Run tasks integration"): download
 * the plan JSON with the run's access token, analyse it as a server-side analysis job with the
 * org's configured backend/model and stored credential, and PATCH the task result to the
 * callback URL. Every outbound call goes through the egress policy (net/egress.ts).
 */

/** The fields of HCP Terraform's run task request this integration reads (payload_version 1). */
export interface RunTaskRequest {
  readonly access_token: string;
  readonly stage: string;
  /** Absent at the pre_plan stage. */
  readonly plan_json_api_url?: string | null;
  readonly task_result_callback_url: string;
  readonly run_id: string;
  readonly workspace_name?: string | null;
  readonly organization_name?: string | null;
}

export interface RunTaskDeps {
  readonly analysis: AnalysisDeps;
  /** `server.public_base_url`: the report link in the result needs an absolute origin (null: no link). */
  readonly publicBaseUrl: string | null;
  /** How often a queued job is polled until it ends, in ms (default 500). */
  readonly pollMs?: number;
}

/** HCP's task result: status and a one-paragraph message, optionally a link. */
export interface TaskResult {
  readonly status: 'passed' | 'failed';
  readonly message: string;
  readonly url: string | null;
}

/** HCP Terraform sends this access token in the request made when a run task is created. */
export const VERIFICATION_TOKEN = 'test-token';
const MAX_PLAN_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Accepts a verified run task request: a verification request (access token `test-token`)
 * does nothing; otherwise the callback URL is checked against the egress policy now
 * (EgressRefusedError, 422) and the work starts in the background.
 * Returns at once with `done`, which settles when the result was sent (never rejects).
 */
export function acceptRunTask(
  deps: RunTaskDeps,
  orgId: string,
  config: RunTaskConfigDoc,
  request: RunTaskRequest,
): { verification: boolean; done: Promise<void> } {
  if (request.access_token === VERIFICATION_TOKEN) return { verification: true, done: Promise.resolve() };
  const { ctx } = deps.analysis;
  assertEgressAllowed(request.task_result_callback_url, ctx.egress ?? STRICT_EGRESS);
  const done = analyseRun(deps, orgId, config, request)
    .catch((error: unknown): TaskResult => ({ status: 'failed', message: `Planwarden could not analyse this plan: ${messageOf(error)}`, url: null }))
    .then((result) => sendTaskResult(ctx, request, result))
    .catch((error: unknown) => ctx.log.warn({ err: error, org_id: orgId, run_id: request.run_id }, 'run task result could not be sent'));
  return { verification: false, done };
}

async function analyseRun(deps: RunTaskDeps, orgId: string, config: RunTaskConfigDoc, request: RunTaskRequest): Promise<TaskResult> {
  const { ctx } = deps.analysis;
  if (!request.plan_json_api_url) {
    return { status: 'passed', message: `Planwarden analyses plans; the ${request.stage} stage has none to check.`, url: null };
  }
  const maxBytes = deps.analysis.settings().max_input_size_mb * 1024 * 1024;
  const plan = await downloadPlan(ctx, request.plan_json_api_url, request.access_token, maxBytes);
  const namespace = runNamespace(request);
  const started = await startAnalysis(deps.analysis, orgId, 'terraform', namespace, {
    llm_backend: config.llm_backend,
    model: config.model,
    raw_input: plan,
  });
  const jobId = String(started.body.job_id);
  const job = await waitForJob(ctx, orgId, jobId, deps.pollMs ?? 500);
  if (job.status !== 'done') return { status: 'failed', message: `Planwarden analysis ${job.status}: ${job.error ?? 'no detail'}`, url: null };
  const url = deps.publicBaseUrl ? `${deps.publicBaseUrl.replace(/\/+$/, '')}/api/v1/reports/${await mintReportLink(ctx, orgId, namespace)}` : null;
  if (job.quota_exceeded) {
    return { status: 'failed', message: 'Planwarden stopped early: the monthly LLM spend cap was reached, so the plan was not fully analysed.', url };
  }
  const gate = await evaluateGate(ctx, orgId, job.hashes, config.gate_severity);
  const verdict = gate.blocking
    ? `${gate.openAtOrAbove} open finding(s) at or above ${config.gate_severity}.`
    : `No open finding at or above ${config.gate_severity}.`;
  return { status: gate.blocking ? 'failed' : 'passed', message: `Planwarden: ${verdict} ${gateCounts(gate)}${url ? ` Report: ${url}` : ''}`, url };
}

/**
 * GET the plan JSON with `Authorization: Bearer <token>`. HCP answers the json-output URL with a
 * temporary redirect to a pre-signed download; at most MAX_PLAN_REDIRECTS hops are followed,
 * each one a new egress-checked request, and the token is sent only to the first URL's origin.
 * Throws on a refused URL, a non-200 answer, too many redirects or a body over `maxBytes`.
 */
async function downloadPlan(ctx: EngineContext, url: string, token: string, maxBytes: number): Promise<string> {
  let target = new URL(url);
  const origin = target.origin;
  for (let hop = 0; hop <= MAX_PLAN_REDIRECTS; hop += 1) {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Planwarden-RunTask' };
    if (target.origin === origin) headers.authorization = `Bearer ${token}`;
    const response = await egressFetch(target, { headers, timeoutMs: 60_000, maxResponseBytes: maxBytes }, ctx.egress ?? STRICT_EGRESS);
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(response.status) && location) {
      target = new URL(location, target);
      continue;
    }
    if (response.status !== 200) throw new Error(`the plan download answered HTTP ${response.status}`);
    return response.text();
  }
  throw new Error(`the plan download redirected more than ${MAX_PLAN_REDIRECTS} times`);
}

/** Polls the job until it is terminal (the stuck-job sweep bounds how long that can take). */
async function waitForJob(ctx: EngineContext, orgId: string, jobId: string, pollMs: number): Promise<JobDoc> {
  for (;;) {
    const job = await ctx.stores.jobs.get(orgId, jobId);
    if (!job) throw new Error(`job ${jobId} disappeared`);
    if (TERMINAL_JOB_STATUSES.includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** `tfc-{workspace}-{run_id}`, limited to the namespace alphabet and 128 characters. */
export function runNamespace(request: RunTaskRequest): string {
  return `tfc-${request.workspace_name || 'workspace'}-${request.run_id}`.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 128);
}

/**
 * PATCH the task result to `task_result_callback_url` (HCP Terraform "Run tasks integration",
 * JSON:API `task-results`), with the run's bearer token. A non-2xx answer is logged.
 */
async function sendTaskResult(ctx: EngineContext, request: RunTaskRequest, result: TaskResult): Promise<void> {
  const attributes: Record<string, string> = { status: result.status, message: result.message };
  if (result.url) attributes.url = result.url;
  const response = await egressFetch(
    request.task_result_callback_url,
    {
      method: 'PATCH',
      headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${request.access_token}`, 'user-agent': 'Planwarden-RunTask' },
      body: JSON.stringify({ data: { type: 'task-results', attributes } }),
      timeoutMs: 10_000,
      maxResponseBytes: 64 * 1024,
    },
    ctx.egress ?? STRICT_EGRESS,
  );
  if (response.status < 200 || response.status >= 300) {
    ctx.log.warn({ run_id: request.run_id, status: response.status }, 'the run task callback answered with a non-2xx status');
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
