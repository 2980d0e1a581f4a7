import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import type { Severity } from '../core/payload';
import { assertEgressAllowed, STRICT_EGRESS } from '../net/egress';
import { notifyChannels } from './channel-delivery';
import { FINDING_NEEDS_REVIEW } from './events';
import type { ReviewWebhookDoc } from './review-webhook-store';
import { findingPageUrl, namespaceFindingsUrl } from '../core/finding-links';
import { notificationSettings, postJson } from './signed-delivery';

export { signatureFor } from './signed-delivery';

/**
 * The legacy review webhook (analysis-api.md "Review webhook", "Outbound: review webhook"):
 * one config per org, and the `finding.needs_review` delivery.
 */

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
  const doc = await ctx.stores.reviewWebhooks.put(
    orgId,
    {
      url: input.url,
      enabled: input.enabled,
      secret_sealed: input.secret ? ctx.stores.box.seal(input.secret) : null,
    },
    ctx.now().toISOString(),
  );
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

/**
 * The fields of a triage record (findings/finding-store.ts FindingDoc) that a needs_review
 * notification carries; declared here so that notify/ names nothing of the findings layer above it.
 */
export interface ReviewSubject {
  readonly resource_hash: string;
  readonly rule_id: string;
  readonly resource_address: string;
  readonly severity: Severity;
  readonly title: string;
}

/** The finding's own dashboard page (under its first namespace, sorted) when the operator set a dashboard base URL; else null. */
function needsReviewUrl(namespaces: readonly string[], finding: ReviewSubject): string | null {
  const namespace = [...namespaces].sort()[0] ?? '-';
  return findingPageUrl(
    namespaceFindingsUrl(notificationSettings().dashboardBaseUrl?.() ?? null, namespace),
    namespace,
    finding.resource_hash,
    finding.rule_id,
  );
}

/**
 * Fires `finding.needs_review` for `finding`, best effort: to the org's enabled review webhook
 * (never throws, never retries, gives up after `notifications.timeout_seconds`; the delivery
 * goes through the egress policy, a refused URL or resolved address is logged and nothing is
 * sent; no redirect is followed) and to every enabled channel subscribed to the event
 * (analysis-api.md "Finding status": "needs_review fires the review webhook and matching
 * notification channels"). Callers do not await it (the returned promise exists for tests
 * and settles when every attempt is over).
 * Webhook body: `{event, org_id, resource_hash, rule_id, resource_address, severity, title, namespaces, trigger, timestamp}`.
 */
export function fireNeedsReview(ctx: EngineContext, orgId: string, finding: ReviewSubject, trigger: 'auto' | 'manual'): Promise<void> {
  const webhook = deliver(ctx, orgId, finding, trigger).catch((error: unknown) => {
    ctx.log.warn({ err: error, org_id: orgId, rule_id: finding.rule_id }, 'review webhook delivery failed');
  });
  const channels = ctx.stores.resources
    .namespacesOf(orgId, finding.resource_hash)
    .then((namespaces) =>
      notifyChannels(ctx, orgId, {
        event: FINDING_NEEDS_REVIEW,
        text: `Finding needs review: [${finding.severity}] ${finding.title} (${finding.rule_id}) on ${finding.resource_address}`,
        url: needsReviewUrl(namespaces, finding),
        data: {
          resource_hash: finding.resource_hash,
          rule_id: finding.rule_id,
          resource_address: finding.resource_address,
          severity: finding.severity,
          title: finding.title,
          namespaces,
          trigger,
        },
      }),
    )
    .catch((error: unknown) => ctx.log.warn({ err: error, org_id: orgId }, 'needs_review notification failed'));
  return Promise.all([webhook, channels]).then(() => undefined);
}

async function deliver(ctx: EngineContext, orgId: string, finding: ReviewSubject, trigger: 'auto' | 'manual'): Promise<void> {
  const config = await ctx.stores.reviewWebhooks.get(orgId);
  if (!config?.enabled) return;
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
  const secret = config.secret_sealed ? ctx.stores.box.open(config.secret_sealed) : null;
  const result = await postJson(ctx, config.url, body, secret, 'Planwarden-Webhook');
  if (!result.ok) ctx.log.warn({ org_id: orgId, status: result.status_code, error: result.error }, 'review webhook delivery failed');
}
