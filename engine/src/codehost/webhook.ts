import { createHmac, timingSafeEqual } from 'node:crypto';
import { NotImplementedError, UnauthorizedError, ValidationError } from '../errors';
import type { CodehostDeps } from './client';
import type { CodehostIntegrationDoc } from './codehost-store';
import { recordReplyCommands, type IssueCommentEvent } from './commands';
import { webhookSecretFor } from './integration-service';
import { startPullAnalysis, type PullRequestEvent } from './pull-analysis';

/**
 * POST /integrations/codehost/webhook (analysis-api.md "Inbound: code-host webhook"; GitHub
 * "Validating webhook deliveries"). The org is located from the unverified installation id (or
 * app id) only to pick the secret; the `X-Hub-Signature-256` check over the raw body gates
 * everything. Redeliveries (same `X-GitHub-Delivery`) start nothing new.
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

type Payload = Record<string, any>;

function parse(raw: Buffer): Payload | null {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Payload : null;
  } catch {
    return null;
  }
}

/** The integration a payload names: by installation id, else by the app id an installation event carries. */
async function locate(deps: CodehostDeps, payload: Payload | null): Promise<CodehostIntegrationDoc | null> {
  const store = deps.analysis.ctx.stores.codehost;
  const installationId = payload?.installation?.id;
  if (installationId !== undefined && installationId !== null) {
    const found = await store.unsafeByInstallation(String(installationId));
    if (found) return found;
  }
  const appId = payload?.installation?.app_id;
  return appId !== undefined && appId !== null ? store.unsafeByApp(String(appId)) : null;
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
  const integration = await locate(deps, payload);
  const secret = webhookSecretFor(ctx, settings, integration);
  if (!secret) throw new NotImplementedError('No webhook secret is configured (codehost.webhook_secret or the organization\'s own app)');
  if (!signatureMatches(secret, request.raw, request.signature)) throw new UnauthorizedError('Missing or invalid X-Hub-Signature-256');
  if (!payload) throw new ValidationError('body: not a JSON object');

  if (request.event === 'installation') return installationEvent(deps, integration, payload);
  if (!integration) return ignored('installation not registered with any organization');
  const orgId = integration.org_id;
  const isPull = request.event === 'pull_request' && PULL_ACTIONS.has(String(payload.action));
  const isReply = request.event === 'issue_comment';
  if (!isPull && !isReply) return ignored(`event ${request.event ?? '(none)'} ${payload.action ?? ''}`.trim());
  if (isPull && (!integration.llm_backend || !integration.model)) return ignored('the organization has not configured a model');

  const deliveryId = request.deliveryId?.slice(0, 200);
  if (deliveryId) {
    const earlier = await ctx.stores.codehost.claimDelivery(deliveryId, orgId, ctx.now().toISOString());
    if (earlier) {
      if (isPull && earlier.job_id) return { status: 202, body: { job_id: earlier.job_id, status: (await ctx.stores.jobs.get(orgId, earlier.job_id))?.status ?? 'queued' } };
      return ignored('delivery already received');
    }
  }
  try {
    if (isReply) {
      const written = await recordReplyCommands(ctx, settings, orgId, payload as IssueCommentEvent);
      return { status: 200, body: { detail: `Recorded ${written} feedback entr${written === 1 ? 'y' : 'ies'}` } };
    }
    const job = await startPullAnalysis(deps, integration, payload as PullRequestEvent);
    if (deliveryId) await ctx.stores.codehost.setDeliveryJob(deliveryId, job.job_id);
    return { status: 202, body: { job_id: job.job_id, status: 'queued' } };
  } catch (error) {
    // Nothing started: let GitHub's redelivery of this id try again.
    if (deliveryId) await ctx.stores.codehost.releaseDelivery(deliveryId).catch(() => undefined);
    throw error;
  }
}

/** installation created / deleted: connects or disconnects the matched org's installation id. */
async function installationEvent(deps: CodehostDeps, integration: CodehostIntegrationDoc | null, payload: Payload): Promise<WebhookReply> {
  const { ctx } = deps.analysis;
  if (!integration) return ignored('installation not registered with any organization');
  const installationId = String(payload.installation?.id ?? '');
  if (payload.action === 'created' && installationId) {
    await ctx.stores.codehost.upsert(integration.org_id, { installation_id: installationId }, ctx.now().toISOString());
    return { status: 200, body: { detail: 'Installation connected' } };
  }
  if (payload.action === 'deleted' && integration.installation_id === installationId) {
    await ctx.stores.codehost.upsert(integration.org_id, { installation_id: null }, ctx.now().toISOString());
    return { status: 200, body: { detail: 'Installation disconnected' } };
  }
  return ignored(`installation ${payload.action ?? ''}`.trim());
}
