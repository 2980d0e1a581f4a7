import { requireCatalogueModel, resolveApiKey } from '../analysis/analyze-service';
import { ingestAuto, type AutoIngestResult } from '../analysis/ingest-service';
import type { JobDoc } from '../analysis/job-store';
import type { AnalysisUnit } from '../core/unit';
import type { EngineContext } from '../context/engine-context';
import { PayloadTooLargeError, ValidationError } from '../core/errors';
import { fireNeedsReview } from '../notify/review-webhook';
import type { CodehostDeps, PullRef } from './client';
import type { CodehostIntegrationDoc } from './codehost-store';
import { describeHits, INJECTION_RULE_ID, scanForInjection } from './injection-scanner';
import { requireAppIdentity } from './app-identity';

/**
 * A pull request opened, synchronized or reopened (analysis-api.md "Inbound: code-host
 * webhook"): fetch the diff with an installation token, scan it for prompt injection,
 * auto-route it into `pr-{owner}-{repo}-{pr_number}` and queue a job (trigger
 * `codehost_webhook`). The comment and the status follow when the job ends (pull-report.ts).
 */

/** The fields of GitHub's `pull_request` webhook payload this integration reads. */
export interface PullRequestEvent {
  readonly action: string;
  readonly number: number;
  readonly pull_request: { readonly number: number; readonly title?: string | null; readonly body?: string | null; readonly head: { readonly sha: string } };
  readonly repository: { readonly name: string; readonly owner: { readonly login: string }; readonly private?: boolean };
  readonly installation?: { readonly id: number | string };
}

/** `pr-{owner}-{repo}-{pr_number}`, limited to the namespace alphabet and 128 characters. */
export function pullNamespace(owner: string, repo: string, prNumber: number): string {
  const ns = `pr-${owner}-${repo}-${prNumber}`.replace(/[^A-Za-z0-9._-]/g, '-');
  return ns.length <= 128 ? ns : `${ns.slice(0, 100)}-${prNumber}`.slice(0, 128);
}

/**
 * Records one injection finding per unit whose body trips the scanner (rule
 * INJECTION_RULE_ID, HIGH, needs_review); hits in the pull request's title or description are
 * charged to its first unit. The units are still analysed (fenced as untrusted data, as always).
 */
async function recordInjectionFindings(ctx: EngineContext, orgId: string, units: readonly AnalysisUnit[], description: string): Promise<void> {
  const now = ctx.now().toISOString();
  for (const [index, unit] of units.entries()) {
    const hits = [...scanForInjection(unit.body), ...(index === 0 ? scanForInjection(description) : [])];
    if (hits.length === 0) continue;
    const { created } = await ctx.stores.findings.observe(
      orgId,
      {
        resource_hash: unit.hash,
        rule_id: INJECTION_RULE_ID,
        resource_address: unit.name,
        severity: 'HIGH',
        title: describeHits(hits).slice(0, 300),
        confidence: 'HIGH',
        initialStatus: 'needs_review',
      },
      now,
    );
    const record = created ? await ctx.stores.findings.get(orgId, unit.hash, INJECTION_RULE_ID) : null;
    if (record) void fireNeedsReview(ctx, orgId, record, 'auto');
  }
}

/** Auto-routes the diff; a diff in which nothing matched an analyzer is an empty ingest (the comment says so). */
async function ingestDiff(ctx: EngineContext, orgId: string, namespace: string, diff: string): Promise<AutoIngestResult> {
  try {
    return await ingestAuto(ctx, orgId, namespace, diff);
  } catch (error) {
    if (error instanceof ValidationError) return { units: [], analyzers_used: [], detections: [] };
    throw error;
  }
}

/**
 * Starts the analysis of one pull request event for the org of `integration`. Throws
 * NotImplementedError (501) when no app can mint a token, BadRequestError (400) when the
 * configured model left the catalogue or the stored credential is gone, PaymentRequiredError
 * (402) at the spend cap, PayloadTooLargeError (413) for a diff over
 * `server.max_input_size_mb`, CodeHostHttpError when GitHub refuses the diff. Returns the job.
 */
export async function startPullAnalysis(deps: CodehostDeps, integration: CodehostIntegrationDoc, event: PullRequestEvent): Promise<JobDoc> {
  const { ctx } = deps.analysis;
  const orgId = integration.org_id;
  const settings = deps.settings();
  const identity = requireAppIdentity(ctx, settings, integration);
  const backend = integration.llm_backend!;
  const model = integration.model!;
  await requireCatalogueModel(ctx, backend, model);
  const key = await resolveApiKey(ctx, orgId, backend as never, null);
  await deps.analysis.assertBudget?.(orgId);

  const ref: PullRef = {
    owner: event.repository.owner.login,
    repo: event.repository.name,
    prNumber: event.pull_request.number,
    // The webhook located the org by this installation's binding (webhook.ts locate).
    installationId: String(event.installation?.id),
  };
  const client = deps.clientFor(identity);
  const diff = await client.pullDiff(ref);
  const maxMb = deps.analysis.settings().max_input_size_mb;
  if (Buffer.byteLength(diff, 'utf8') > maxMb * 1024 * 1024)
    throw new PayloadTooLargeError(`The pull request diff exceeds server.max_input_size_mb (${maxMb} MB)`);

  const namespace = pullNamespace(ref.owner, ref.repo, ref.prNumber);
  const routed = await ingestDiff(ctx, orgId, namespace, diff);
  if (settings.injection_scan_enabled) {
    await recordInjectionFindings(ctx, orgId, routed.units, `${event.pull_request.title ?? ''}\n${event.pull_request.body ?? ''}`);
  }
  const hashes = [...new Set(routed.units.map((u) => u.hash))];
  const job = await ctx.stores.jobs.create(
    {
      org_id: orgId,
      namespace,
      analyzer: 'auto',
      analyzers_used: routed.analyzers_used,
      detections: routed.detections,
      mode: 'async',
      status: 'queued',
      trigger: 'codehost_webhook',
      external_ref: { provider: 'github', repo: `${ref.owner}/${ref.repo}`, pr_number: ref.prNumber },
      resource_count: hashes.length,
      total_count: hashes.length,
      llm_backend: backend,
      model,
      rule_type: null,
      retry_of: null,
      hashes,
      run_id: routed.run_id ?? null,
      key_source: key.source === 'none' ? 'none' : 'stored',
    },
    ctx.now().toISOString(),
  );
  await ctx.stores.codehost.putPull(
    orgId,
    namespace,
    {
      provider: 'github',
      owner: ref.owner,
      repo: ref.repo,
      pr_number: ref.prNumber,
      installation_id: ref.installationId,
      head_sha: event.pull_request.head.sha,
      last_job_id: job.job_id,
    },
    ctx.now().toISOString(),
  );
  await client
    .postStatus(ref, event.pull_request.head.sha, {
      state: 'pending',
      context: 'service-core',
      description: 'Planwarden is analysing this change',
      targetUrl: null,
    })
    .catch((error: unknown) => ctx.log.warn({ err: error, org_id: orgId, namespace }, 'could not post the pending commit status'));
  deps.analysis.enqueue(job, key.apiKey);
  return job;
}
