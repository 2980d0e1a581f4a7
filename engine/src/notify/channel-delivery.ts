import type { EngineContext } from '../context/engine-context';
import type { ChannelDoc, DeliveryOutcome } from './channel-store';
import { postJson } from './signed-delivery';

/**
 * What one notification says: the event name, a one-line human text, an optional link and the
 * event's facts (analysis-api.md "Outbound: notification channels"; the payload shape is ours,
 * docs/decisions.md "Notification payloads").
 */
export interface Notification {
  readonly event: string;
  readonly text: string;
  readonly url: string | null;
  readonly data: Record<string, unknown>;
}

/**
 * The body a channel receives. `chat`: a Slack-compatible incoming-webhook message
 * (`{text, blocks}`, DESIGN.md decisions); `webhook`: `{event, org_id, timestamp, text, url, data}`.
 */
export function channelBody(kind: ChannelDoc['kind'], orgId: string, notification: Notification, timestamp: string): string {
  if (kind === 'chat') {
    const text = notification.url ? `${notification.text} <${notification.url}|Open>` : notification.text;
    return JSON.stringify({
      text,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `Planwarden · ${notification.event}` }] },
      ],
    });
  }
  return JSON.stringify({ event: notification.event, org_id: orgId, timestamp, text: notification.text, url: notification.url, data: notification.data });
}

/**
 * Delivers `notification` to one channel (signed for the webhook kind when a secret is set)
 * and stores the outcome as the channel's `last_delivery`. Never throws. Returns the outcome.
 */
export async function deliverToChannel(ctx: EngineContext, channel: ChannelDoc, notification: Notification): Promise<DeliveryOutcome> {
  const at = ctx.now().toISOString();
  let outcome: DeliveryOutcome;
  try {
    const url = ctx.stores.box.open(channel.target_url_sealed);
    const secret = channel.kind === 'webhook' && channel.secret_sealed ? ctx.stores.box.open(channel.secret_sealed) : null;
    const result = await postJson(ctx, url, channelBody(channel.kind, channel.org_id, notification, at), secret, 'Planwarden-Notifications');
    outcome = { ...result, event: notification.event, at };
  } catch (error) {
    outcome = { ok: false, status_code: null, error: error instanceof Error ? error.message : String(error), event: notification.event, at };
  }
  await ctx.stores.channels.update(channel.org_id, channel.channel_id, { last_delivery: outcome }).catch((error: unknown) => {
    ctx.log.warn({ err: error, channel_id: channel.channel_id }, 'could not store a channel delivery outcome');
  });
  if (!outcome.ok)
    ctx.log.warn(
      { org_id: channel.org_id, channel_id: channel.channel_id, event: notification.event, status_code: outcome.status_code, error: outcome.error },
      'notification delivery failed',
    );
  return outcome;
}

/**
 * Fire and forget (analysis-api.md "Outbound: notification channels"): sends `notification` to
 * every enabled channel of the org subscribed to its event. Callers do not await it; the
 * promise (settling when every attempt is over, never rejecting) exists for tests.
 */
export function notifyChannels(ctx: EngineContext, orgId: string, notification: Notification): Promise<void> {
  return ctx.stores.channels
    .subscribed(orgId, notification.event)
    .then((channels) => Promise.all(channels.map((c) => deliverToChannel(ctx, c, notification))))
    .then(() => undefined)
    .catch((error: unknown) => ctx.log.warn({ err: error, org_id: orgId, event: notification.event }, 'notification fan-out failed'));
}
