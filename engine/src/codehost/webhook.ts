import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ConflictError, NotImplementedError, UnauthorizedError, ValidationError } from '../core/errors';
import { webhookSecretFor } from './app-identity';
import type { CodehostDeps } from './client';
import type { CodehostIntegrationDoc } from './codehost-store';
import { recordReplyCommands, type IssueCommentEvent } from './commands';
import { bindInstallation, CODE_HOST_ACTOR, installationOfApp } from './installation-binding';
import type { ClaimDoc, OnceLedger } from './once-ledger';
import { startPullAnalysis, type PullRequestEvent } from './pull-analysis';

/**
 * POST /integrations/codehost/webhook (analysis-api.md "Inbound: code-host webhook"; GitHub
 * "Validating webhook deliveries"). The org is the one the payload's installation is bound to
 * (docs/decisions.md "Installation binding"), or for an installation event of an org's own app
 * the app's org; it is located unverified only to pick the secret, and the
 * `X-Hub-Signature-256` check over the raw body gates everything. A redelivery (same
 * `X-GitHub-Delivery`) or a replay of a pull-request event (same installation, repository,
 * number, head sha and action under a new delivery id) starts nothing new.
 */

export interface WebhookRequest {
  /** `X-GitHub-Event`. */
  readonly event: string | undefined;
  /** `X-GitHub-Delivery`. */
  readonly deliveryId: string | undefined;
  /** `X-Hub-Signature-256`. */
  readonly signature: string | undefined;
  readonly raw: Buffer;
}

export interface WebhookReply {
  readonly status: 200 | 202;
  readonly body: Record<string, unknown>;
}

const PULL_ACTIONS = new Set(['opened', 'synchronize', 'reopened']);

/** `sha256=<hex>` HMAC-SHA256 of `raw` under `secret` (what GitHub sends in X-Hub-Signature-256). */
export function hubSignature(secret: string, raw: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/** Constant-time comparison of the header with the expected signature. */
function signatureMatches(secret: string, raw: Buffer, given: string | undefined): boolean {
  if (!given) return false;
  const expected = Buffer.from(hubSignature(secret, raw), 'utf8');
  const actual = Buffer.from(given.trim(), 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A delivery's JSON object: the fields read before its event type is known; the rest stays unread. */
interface Payload {
  readonly action?: unknown;
  readonly installation?: { readonly id?: unknown; readonly app_id?: unknown } | null;
}

function parse(raw: Buffer): Payload | null {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Payload) : null;
  } catch {
    return null;
  }
}

/**
 * The integration a payload is for: the org its installation is bound to; for an installation
 * event naming no bound installation, the org owning the app it names (an own app's first event).
 */
async function locate(deps: CodehostDeps, event: string | undefined, payload: Payload | null): Promise<CodehostIntegrationDoc | null> {
  const store = deps.analysis.ctx.stores.codehost;
  const installationId = payload?.installation?.id;
  if (installationId !== undefined && installationId !== null) {
    const binding = await store.unsafeBindingOf(String(installationId));
    if (binding) return store.get(binding.org_id);
  }
  const appId = payload?.installation?.app_id;
  return event === 'installation' && appId !== undefined && appId !== null ? store.unsafeByApp(String(appId)) : null;
}

/**
 * The content key of a pull-request event: installation, repository, number, head sha and
 * action, hashed to a fixed length. The same signed bytes replayed under a new delivery id
 * carry the same key.
 */
function pullEventKey(installationId: string, event: PullRequestEvent): string {
  const parts = [
    installationId,
    event.repository?.owner?.login,
    event.repository?.name,
    event.pull_request?.number,
    event.pull_request?.head?.sha,
    event.action,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

interface Claim {
  readonly ledger: OnceLedger;
  readonly key: string;
}

const ignored = (why: string): WebhookReply => ({ status: 200, body: { detail: `Ignored: ${why}` } });

/**
 * Handles one delivery. Throws NotImplementedError (501) when neither the matched
 * integration's own app nor the platform has a webhook secret, UnauthorizedError (401) for a
 * missing or wrong signature, ValidationError (422) for a signed body that is not a JSON
 * object, and what startPullAnalysis throws. Returns 202 `{job_id, status}` for a pull request
 * analysis (the first job's id again for a redelivery), 200 otherwise.
 */
export async function handleWebhook(deps: CodehostDeps, request: WebhookRequest): Promise<WebhookReply> {
  const { ctx } = deps.analysis;
  const settings = deps.settings();
  const payload = parse(request.raw);
  const integration = await locate(deps, request.event, payload);
  const secret = webhookSecretFor(ctx, settings, integration);
  if (!secret) throw new NotImplementedError("No webhook secret is configured (codehost.webhook_secret or the organization's own app)");
  if (!signatureMatches(secret, request.raw, request.signature)) throw new UnauthorizedError('Missing or invalid X-Hub-Signature-256');
  if (!payload) throw new ValidationError('body: not a JSON object');

  if (request.event === 'installation') return installationEvent(deps, integration, payload);
  if (!integration) return ignored('installation not registered with any organization');
  const orgId = integration.org_id;
  const isPull = request.event === 'pull_request' && PULL_ACTIONS.has(String(payload.action));
  const isReply = request.event === 'issue_comment';
  if (!isPull && !isReply) return ignored(`event ${request.event ?? '(none)'} ${payload.action ?? ''}`.trim());
  if (isPull && (!integration.llm_backend || !integration.model)) return ignored('the organization has not configured a model');

  const store = ctx.stores.codehost;
  const claims: Claim[] = [];
  const deliveryId = request.deliveryId?.slice(0, 200);
  if (deliveryId) claims.push({ ledger: store.deliveries, key: deliveryId });
  if (isPull) claims.push({ ledger: store.pullEvents, key: pullEventKey(String(payload.installation?.id), payload as PullRequestEvent) });
  const release = (upTo = claims.length) => Promise.all(claims.slice(0, upTo).map((c) => c.ledger.release(c.key).catch(() => undefined)));
  for (const [index, claim] of claims.entries()) {
    const earlier = await claim.ledger.claim(claim.key, orgId, ctx.now().toISOString());
    if (!earlier) continue;
    // This delivery starts nothing: forget the claims it made before this one.
    await release(index);
    return alreadyReceived(deps, orgId, isPull, earlier);
  }
  try {
    if (isReply) {
      const written = await recordReplyCommands(ctx, settings, orgId, payload as IssueCommentEvent);
      return { status: 200, body: { detail: `Recorded ${written} feedback entr${written === 1 ? 'y' : 'ies'}` } };
    }
    const job = await startPullAnalysis(deps, integration, payload as PullRequestEvent);
    await Promise.all(claims.map((c) => c.ledger.setJob(c.key, job.job_id)));
    return { status: 202, body: { job_id: job.job_id, status: 'queued' } };
  } catch (error) {
    // Nothing started: let GitHub's redelivery try again.
    await release();
    throw error;
  }
}

/** The answer to work already received: the first job again for a pull request of the same org, else 200 ignored. */
async function alreadyReceived(deps: CodehostDeps, orgId: string, isPull: boolean, earlier: ClaimDoc): Promise<WebhookReply> {
  if (!isPull || !earlier.job_id || earlier.org_id !== orgId) return ignored('delivery already received');
  const job = await deps.analysis.ctx.stores.jobs.get(orgId, earlier.job_id);
  return { status: 202, body: { job_id: earlier.job_id, status: job?.status ?? 'queued' } };
}

/**
 * installation created / deleted. Created binds the installation to the org of the own app that
 * signed the event, once GitHub confirms it is that app's (a platform-app installation binds
 * through the setup URL instead); deleted unbinds it from its org.
 */
async function installationEvent(deps: CodehostDeps, integration: CodehostIntegrationDoc | null, payload: Payload): Promise<WebhookReply> {
  const { ctx } = deps.analysis;
  if (!integration) return ignored('installation not registered with any organization');
  const installationId = /^\d{1,20}$/.test(String(payload.installation?.id ?? '')) ? String(payload.installation?.id) : '';
  const orgId = integration.org_id;
  const bound = (await ctx.stores.codehost.installationOf(orgId))?.installation_id === installationId;
  if (payload.action === 'created' && installationId && (bound || integration.codehost_app)) {
    if (!bound && !(await installationOfApp(deps, integration, installationId))) return ignored("installation unknown to the organization's app");
    try {
      await bindInstallation({ engine: ctx, actor: CODE_HOST_ACTOR }, orgId, installationId, 'installation_event');
    } catch (error) {
      if (error instanceof ConflictError) return ignored('installation bound to another organization');
      throw error;
    }
    return { status: 200, body: { detail: 'Installation connected' } };
  }
  if (payload.action === 'deleted' && bound) {
    await ctx.stores.codehost.unbindInstallation(orgId, installationId);
    return { status: 200, body: { detail: 'Installation disconnected' } };
  }
  return ignored(`installation ${payload.action ?? ''}`.trim());
}
