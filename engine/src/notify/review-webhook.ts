import { createHmac } from 'node:crypto';
import type { EngineContext } from '../context';
import { NotFoundError } from '../errors';
import type { FindingDoc } from '../findings/finding-store';
import { assertEgressAllowed, egressFetch, STRICT_EGRESS } from '../net/egress';
import type { ReviewWebhookDoc } from './review-webhook-store';

/**
 * The legacy review webhook (analysis-api.md "Review webhook", "Outbound: review webhook"):
 * one config per org, and the `finding.needs_review` delivery.
 */

/** Bounded delivery time (the spec's `notifications.timeout_seconds` default, 5 s). */
export const REVIEW_WEBHOOK_TIMEOUT_MS = 5_000;

/** analysis-api.md "Review webhook config": never the secret, only `has_secret`. */
export function presentReviewWebhook(doc: ReviewWebhookDoc) {
  return { url: doc.url, enabled: doc.enabled, has_secret: doc.secret_sealed !== null, created_at: doc.created_at, updated_at: doc.updated_at };
}

/**
 * PUT /orgs/{org_id}/integrations/review-webhook: replaces the whole config; a null or omitted
 * secret clears the stored one. Returns the presented config. Throws EgressRefusedError (422)
 * when the URL fails the egress policy's static check (net/egress.ts: scheme, credentials,
 * literal addresses in refused ranges, reserved host names; the detail names the rule).
 */
export async function putReviewWebhook(ctx: EngineContext, orgId: string, input: { url: string; secret: string | null; enabled: boolean }) {
  assertEgressAllowed(input.url, ctx.egress ?? STRICT_EGRESS);
  const doc = await ctx.stores.reviewWebhooks.put(orgId, {
    url: input.url,
    enabled: input.enabled,
    secret_sealed: input.secret ? ctx.stores.box.seal(input.secret) : null,
  }, ctx.now().toISOString());
  return presentReviewWebhook(doc);
}

/** GET: the presented config; NotFoundError (404) when none. */
export async function getReviewWebhook(ctx: EngineContext, orgId: string) {
  const doc = await ctx.stores.reviewWebhooks.get(orgId);
  if (!doc) throw new NotFoundError('No review webhook configured');
  return presentReviewWebhook(doc);
}

/** DELETE: removes the config; NotFoundError (404) when none. */
export async function deleteReviewWebhook(ctx: EngineContext, orgId: string) {
  if (!(await ctx.stores.reviewWebhooks.delete(orgId))) throw new NotFoundError('No review webhook configured');
  return { detail: 'Review webhook deleted' };
}

/** `sha256=<hex>` HMAC-SHA256 of the raw body under `secret` (the `X-Service-Signature` value). */
export function signatureFor(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
}

/**
 * Fires `finding.needs_review` for `finding` to the org's enabled review webhook, best effort:
 * never throws, never retries, gives up after REVIEW_WEBHOOK_TIMEOUT_MS. The delivery goes
 * through the egress policy (net/egress.ts): a refused URL or resolved address is logged and
 * nothing is sent; no redirect is followed. Callers do not await
 * it (the returned promise exists for tests and settles when the attempt is over).
 * Body: `{event, org_id, resource_hash, rule_id, resource_address, severity, title, namespaces, trigger, timestamp}`.
 */
export function fireNeedsReview(ctx: EngineContext, orgId: string, finding: FindingDoc, trigger: 'auto' | 'manual'): Promise<void> {
  return deliver(ctx, orgId, finding, trigger).catch((error: unknown) => {
    ctx.log.warn({ err: error, org_id: orgId, rule_id: finding.rule_id }, 'review webhook delivery failed');
  });
}

async function deliver(ctx: EngineContext, orgId: string, finding: FindingDoc, trigger: 'auto' | 'manual'): Promise<void> {
  const config = await ctx.stores.reviewWebhooks.get(orgId);
  if (!config || !config.enabled) return;
  const body = JSON.stringify({
    event: 'finding.needs_review',
    org_id: orgId,
    resource_hash: finding.resource_hash,
    rule_id: finding.rule_id,
    resource_address: finding.resource_address,
    severity: finding.severity,
    title: finding.title,
    namespaces: await ctx.stores.resources.namespacesOf(orgId, finding.resource_hash),
    trigger,
    timestamp: ctx.now().toISOString(),
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Planwarden-Webhook' };
  if (config.secret_sealed) headers['X-Service-Signature'] = signatureFor(ctx.stores.box.open(config.secret_sealed), body);
  const response = await egressFetch(config.url, { method: 'POST', headers, body, timeoutMs: REVIEW_WEBHOOK_TIMEOUT_MS, maxResponseBytes: 64 * 1024 }, ctx.egress ?? STRICT_EGRESS);
  if (response.status < 200 || response.status >= 300) ctx.log.warn({ org_id: orgId, status: response.status }, 'review webhook answered with a non-2xx status');
}
