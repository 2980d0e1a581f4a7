import type { JobDoc } from '../analysis/job-store';
import type { EngineContext } from '../context/engine-context';
import { commitState, evaluateGate, type GateOutcome } from '../integrations/gate';
import { notifyChannels } from '../notify/channel-delivery';
import { PR_GATE_BLOCKED } from '../notify/events';
import { mintReportLink } from '../report/report-link-service';
import { CodeHostHttpError, type CodeHostClient, type CodehostDeps, type CommitStatus, type PullRef } from './client';
import type { PullDoc } from './codehost-store';
import { renderComment, reportMarker } from './comment';
import { INJECTION_RULE_ID } from './injection-scanner';
import { appIdentityFor } from './app-identity';
import { namespaceFindingsUrl } from '../core/finding-links';

/**
 * Publishing a pull request's analysis (analysis-api.md "Code-hosting integration", "Commit
 * status posted to a pull request"): the one report comment (found by its first-line marker
 * among the app's own comments, edited in place, re-posted when gone) and the `service-core`
 * commit status on the head commit. Run when a webhook job ends and after every triage.
 */

export const STATUS_CONTEXT = 'service-core';

/** `create`: after an analysis (post the comment if missing); `rewrite`: after triage (edit only an existing comment). */
export type PublishMode = 'create' | 'rewrite';

function refOf(pull: PullDoc): PullRef {
  return { owner: pull.owner, repo: pull.repo, prNumber: pull.pr_number, installationId: pull.installation_id };
}

/** The app's own report comment of `namespace`, or null (another user's copy of the marker never counts). */
async function findOwnComment(client: CodeHostClient, ref: PullRef, appId: string, namespace: string): Promise<number | null> {
  const marker = reportMarker(namespace);
  const comments = await client.listComments(ref);
  const own = comments.find((c) => c.appId === appId && c.body.split('\n', 1)[0].trim() === marker);
  return own ? own.id : null;
}

/** Edits the report comment in place, or posts it when none exists or it cannot be edited (mode create). Returns its id or null. */
async function upsertComment(client: CodeHostClient, ref: PullRef, appId: string, namespace: string, body: string, mode: PublishMode): Promise<number | null> {
  const existing = await findOwnComment(client, ref, appId, namespace);
  if (existing !== null) {
    try {
      await client.updateComment(ref, existing, body);
      return existing;
    } catch (error) {
      // Deleted between the list and the edit, or locked: post a new one (create mode only).
      if (!(error instanceof CodeHostHttpError) || ![403, 404, 410].includes(error.status) || mode === 'rewrite') throw error;
    }
  }
  if (mode === 'rewrite') return null;
  return client.createComment(ref, body);
}

function describe(state: CommitStatus['state'], gate: GateOutcome, job: JobDoc): string {
  if (state === 'error') return `Analysis ${job.status}: ${job.error ?? 'no detail'}`.slice(0, 140);
  if (state === 'failure') return `${gate.openAtOrAbove} blocking finding(s); ${gate.needsReview} awaiting review`;
  if (state === 'pending') return `${gate.needsReview} finding(s) awaiting review`;
  return job.quota_exceeded ? 'No blocking findings (partial: spend cap reached)' : 'No blocking findings';
}

function baseUrl(url: string | null): string | null {
  return url ? url.replace(/\/+$/, '') : null;
}

/**
 * Rewrites the pull request's comment and posts its commit status from the latest job's
 * resources. Throws what the code host throws (callers log it: a code-host failure is never an
 * API error). Fires `pr.gate_blocked` after an analysis that leaves the check failing or pending.
 * Does nothing when no app serves the org or the pull's installation is no longer the org's.
 */
export async function publishPullReport(deps: CodehostDeps, orgId: string, pull: PullDoc, mode: PublishMode): Promise<void> {
  const { ctx } = deps.analysis;
  const settings = deps.settings();
  const integration = await ctx.stores.codehost.get(orgId);
  const identity = appIdentityFor(ctx, settings, integration);
  if (!identity || !pull.last_job_id) return;
  // Only into the installation bound to the org now (docs/decisions.md "Installation binding"):
  // a pull recorded under an installation since unbound (or never proven) gets nothing.
  if ((await ctx.stores.codehost.installationOf(orgId))?.installation_id !== pull.installation_id) return;
  const job = await ctx.stores.jobs.get(orgId, pull.last_job_id);
  if (!job) return;
  const gate = await evaluateGate(ctx, orgId, job.hashes, 'HIGH', { ruleModes: new Map([[INJECTION_RULE_ID, settings.injection_scan_gate]]) });
  const state: CommitStatus['state'] = job.status === 'done' ? commitState(gate) : 'error';
  const publicBase = baseUrl(settings.public_base_url);
  const dashboardBase = baseUrl(settings.dashboard_base_url) ?? publicBase;
  const reportUrl = publicBase && job.hashes.length > 0 ? `${publicBase}/api/v1/reports/${await mintReportLink(ctx, orgId, pull.namespace)}` : null;
  const dashboardUrl = namespaceFindingsUrl(dashboardBase, pull.namespace);
  const findings = job.hashes.length === 0 ? [] : await ctx.stores.findings.forResources(orgId, job.hashes);
  const body = renderComment({
    namespace: pull.namespace,
    state,
    gate,
    findings,
    detections: job.detections,
    jobStatus: job.status,
    jobError: job.error,
    quotaExceeded: job.quota_exceeded,
    reportUrl,
    dashboardUrl,
    headSha: pull.head_sha,
    now: ctx.now(),
    comparison: job.runs_compared ?? null,
  });
  const client = deps.clientFor(identity);
  const ref = refOf(pull);
  const commentId = await upsertComment(client, ref, identity.appId, pull.namespace, body, mode);
  if (commentId !== pull.comment_id) await ctx.stores.codehost.putPull(orgId, pull.namespace, { comment_id: commentId }, ctx.now().toISOString());
  const description = describe(state, gate, job);
  await client.postStatus(ref, pull.head_sha, { state, context: STATUS_CONTEXT, description, targetUrl: reportUrl ?? dashboardUrl });
  if (mode === 'create' && (state === 'failure' || state === 'pending')) {
    void notifyChannels(ctx, orgId, {
      event: PR_GATE_BLOCKED,
      text: `Pull request ${pull.owner}/${pull.repo}#${pull.pr_number} is ${state === 'failure' ? 'blocked' : 'awaiting review'}: ${description}`,
      url: dashboardUrl ?? reportUrl,
      data: {
        provider: pull.provider,
        repo: `${pull.owner}/${pull.repo}`,
        pr_number: pull.pr_number,
        namespace: pull.namespace,
        state,
        commit: pull.head_sha,
        job_id: job.job_id,
      },
    });
  }
}

/**
 * The job-end hook: a finished `codehost_webhook` job that is still its pull request's latest
 * publishes the report (an older job overtaken by a newer push stays silent). Never throws.
 */
export async function onCodehostJobEnd(deps: CodehostDeps, job: JobDoc): Promise<void> {
  if (job.trigger !== 'codehost_webhook') return;
  const { ctx } = deps.analysis;
  try {
    const pull = await ctx.stores.codehost.getPull(job.org_id, job.namespace);
    if (!pull || pull.last_job_id !== job.job_id) return;
    await publishPullReport(deps, job.org_id, pull, 'create');
  } catch (error) {
    ctx.log.warn({ err: error, org_id: job.org_id, job_id: job.job_id }, 'could not publish the pull request report');
  }
}

/**
 * After a triage of `resourceHash` (analysis-api.md "Findings and review feedback"): re-posts
 * the commit status of every pull request the resource feeds and rewrites (never creates)
 * their comments. Best effort: failures are logged, never thrown.
 */
export async function republishAfterTriage(deps: CodehostDeps, ctx: EngineContext, orgId: string, resourceHash: string): Promise<void> {
  try {
    const namespaces = await ctx.stores.resources.namespacesOf(orgId, resourceHash);
    const pulls = await ctx.stores.codehost.pullsIn(
      orgId,
      namespaces.filter((n) => n.startsWith('pr-')),
    );
    for (const pull of pulls) {
      await publishPullReport(deps, orgId, pull, 'rewrite').catch((error: unknown) => {
        ctx.log.warn({ err: error, org_id: orgId, namespace: pull.namespace }, 'could not re-post the pull request report after triage');
      });
    }
  } catch (error) {
    ctx.log.warn({ err: error, org_id: orgId }, 'could not re-post pull request reports after triage');
  }
}
