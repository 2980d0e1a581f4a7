import { createHmac } from 'node:crypto';
import type { EngineContext } from '../context/engine-context';
import { EgressRefusedError, egressFetch, STRICT_EGRESS } from '../net/egress';

/**
 * One outbound JSON POST to a tenant-set URL, optionally signed (analysis-api.md "Review
 * webhook", "Notification channels"): HMAC-SHA256 over the raw body, header
 * `X-Service-Signature: sha256=<hex>`. Shared by the review webhook and the channels.
 */

/** Delivery settings (analysis-api.md "Limits": `notifications.timeout_seconds`, default 5). */
export interface NotificationSettings {
  readonly timeoutMs: number;
  readonly maxChannelsPerOrg: number;
  /** The dashboard's base URL now (`server.dashboard_base_url`, else `public_base_url`; null: none), for links in notifications. */
  readonly dashboardBaseUrl?: () => string | null;
}

let settings: NotificationSettings = { timeoutMs: 5_000, maxChannelsPerOrg: 20 };

/** Sets the process-wide notification settings (server start; tests). */
export function configureNotifications(next: Partial<NotificationSettings>): void {
  settings = { ...settings, ...next };
}

/** The current notification settings. */
export function notificationSettings(): NotificationSettings {
  return settings;
}

/** `sha256=<hex>` HMAC-SHA256 of the raw body under `secret` (the `X-Service-Signature` value). */
export function signatureFor(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
}

/** What one attempt came to: `status_code` null when nothing was sent or no answer came. */
export interface AttemptResult {
  readonly ok: boolean;
  readonly status_code: number | null;
  readonly error: string | null;
}

/**
 * POSTs `body` (already serialised JSON) to `url` through the egress policy (net/egress.ts: the
 * resolved address is checked, no redirect followed), signed when `secret` is given, within
 * `notifications.timeout_seconds`. Never throws: a refusal, DNS, connection or timeout failure
 * is `{ok: false, status_code: null, error}`; a non-2xx answer is `{ok: false, status_code, error}`.
 */
export async function postJson(ctx: EngineContext, url: string, body: string, secret: string | null, userAgent: string): Promise<AttemptResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': userAgent };
  if (secret) headers['X-Service-Signature'] = signatureFor(secret, body);
  try {
    const response = await egressFetch(
      url,
      { method: 'POST', headers, body, timeoutMs: settings.timeoutMs, maxResponseBytes: 64 * 1024 },
      ctx.egress ?? STRICT_EGRESS,
    );
    const ok = response.status >= 200 && response.status < 300;
    return { ok, status_code: response.status, error: ok ? null : `the receiver answered HTTP ${response.status}` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, status_code: null, error: error instanceof EgressRefusedError ? `refused by the egress policy: ${message}` : message };
  }
}
