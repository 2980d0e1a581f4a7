import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { assertEgressAllowed, STRICT_EGRESS } from '../net/egress';
import { deliverToChannel } from './channel-delivery';
import type { ChannelDoc } from './channel-store';
import { isKnownEvent } from './events';
import { notificationSettings } from './signed-delivery';

/**
 * Notification channels (analysis-api.md "Notification channels", "Notification channel"):
 * CRUD under /orgs/{org_id}/notifications/channels and the test delivery.
 */

export const CreateChannelSchema = z
  .object({
    label: z.string().min(1).max(80),
    kind: z.enum(['chat', 'webhook']),
    target_url: z.string().min(1).max(2048),
    secret: z.string().min(1).max(512).nullable().default(null),
    events: z.array(z.string().min(1).max(100)).max(50).default([]),
    enabled: z.boolean().default(true),
  })
  .strict();

export const UpdateChannelSchema = z
  .object({
    label: z.string().min(1).max(80).optional(),
    target_url: z.string().min(1).max(2048).optional(),
    secret: z.string().min(1).max(512).nullable().optional(),
    clear_secret: z.boolean().optional(),
    events: z.array(z.string().min(1).max(100)).max(50).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

/** The channel as the API shows it: never the URL or the secret. */
export function presentChannel(c: ChannelDoc) {
  return {
    channel_id: c.channel_id,
    label: c.label,
    kind: c.kind,
    target_url_hint: c.target_url_hint,
    has_secret: c.secret_sealed !== null,
    events: c.events,
    enabled: c.enabled,
    created_at: c.created_at,
    updated_at: c.updated_at,
    last_delivery: c.last_delivery,
  };
}

/**
 * A recognisable but incomplete form of the URL (`https://hooks.example.com/serv…`): scheme and
 * host, then at most 4 characters of the path and an ellipsis, so the full URL (whose path is
 * usually the credential of an incoming webhook) is never shown.
 */
export function targetUrlHint(url: URL): string {
  const rest = `${url.pathname}${url.search}`.slice(1);
  return `${url.protocol}//${url.host}/${rest.slice(0, Math.min(4, Math.floor(rest.length / 2)))}…`;
}

function assertEvents(events: readonly string[]): void {
  const unknown = events.filter((e) => !isKnownEvent(e));
  if (unknown.length > 0) throw new ValidationError(`events: unknown event name(s) ${unknown.join(', ')} (see GET /notifications/events)`);
}

function checkedUrl(ctx: EngineContext, url: string): URL {
  return assertEgressAllowed(url, ctx.egress ?? STRICT_EGRESS);
}

async function requireChannel(ctx: EngineContext, orgId: string, channelId: string): Promise<ChannelDoc> {
  const channel = await ctx.stores.channels.get(orgId, channelId);
  if (!channel) throw new NotFoundError('No such notification channel');
  return channel;
}

/**
 * POST .../channels: 201 channel. Throws ValidationError (422) for unknown events, a secret on
 * a chat channel, or a URL the egress policy refuses (EgressRefusedError names the rule and the
 * setting); ConflictError (409) when the org already has `notifications.max_channels_per_org`.
 */
export async function createChannel(ctx: EngineContext, orgId: string, input: z.infer<typeof CreateChannelSchema>) {
  assertEvents(input.events);
  if (input.kind === 'chat' && input.secret) throw new ValidationError('secret: only webhook channels are signed');
  const url = checkedUrl(ctx, input.target_url);
  const max = notificationSettings().maxChannelsPerOrg;
  if ((await ctx.stores.channels.count(orgId)) >= max)
    throw new ConflictError(`The organization already has ${max} channels (notifications.max_channels_per_org)`);
  const now = ctx.now().toISOString();
  const doc = await ctx.stores.channels.insert({
    org_id: orgId,
    channel_id: `ch_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    label: input.label,
    kind: input.kind,
    target_url_sealed: ctx.stores.box.seal(url.href),
    target_url_hint: targetUrlHint(url),
    secret_sealed: input.secret ? ctx.stores.box.seal(input.secret) : null,
    events: [...new Set(input.events)],
    enabled: input.enabled,
    created_at: now,
    updated_at: now,
    last_delivery: null,
  });
  return presentChannel(doc);
}

/** GET .../channels: the org's channels, oldest first. */
export async function listChannels(ctx: EngineContext, orgId: string) {
  return (await ctx.stores.channels.list(orgId)).map(presentChannel);
}

/** GET .../channels/{id}; NotFoundError (404) when absent in the org. */
export async function getChannel(ctx: EngineContext, orgId: string, channelId: string) {
  return presentChannel(await requireChannel(ctx, orgId, channelId));
}

/**
 * PATCH .../channels/{id}: partial; omitted target_url and secret keep their values,
 * `clear_secret: true` removes the secret. 404; 422 as at creation.
 */
export async function updateChannel(ctx: EngineContext, orgId: string, channelId: string, input: z.infer<typeof UpdateChannelSchema>) {
  const channel = await requireChannel(ctx, orgId, channelId);
  const changes: Partial<ChannelDoc> = { updated_at: ctx.now().toISOString() };
  if (input.events !== undefined) {
    assertEvents(input.events);
    changes.events = [...new Set(input.events)];
  }
  if (input.label !== undefined) changes.label = input.label;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.target_url !== undefined) {
    const url = checkedUrl(ctx, input.target_url);
    changes.target_url_sealed = ctx.stores.box.seal(url.href);
    changes.target_url_hint = targetUrlHint(url);
  }
  if (input.clear_secret && input.secret) throw new ValidationError('secret: give either secret or clear_secret, not both');
  if (input.secret && channel.kind === 'chat') throw new ValidationError('secret: only webhook channels are signed');
  if (input.secret) changes.secret_sealed = ctx.stores.box.seal(input.secret);
  if (input.clear_secret || input.secret === null) changes.secret_sealed = null;
  const after = await ctx.stores.channels.update(orgId, channelId, changes);
  if (!after) throw new NotFoundError('No such notification channel');
  return presentChannel(after);
}

/** DELETE .../channels/{id}; NotFoundError (404) when none. */
export async function deleteChannel(ctx: EngineContext, orgId: string, channelId: string) {
  if (!(await ctx.stores.channels.delete(orgId, channelId))) throw new NotFoundError('No such notification channel');
  return { detail: 'Channel deleted' };
}

/**
 * POST .../channels/{id}/test: a synthetic notification, ignoring subscriptions and enabled,
 * awaited; the outcome is stored as last_delivery. Returns `{ok, status_code, error}`.
 */
export async function testChannel(ctx: EngineContext, orgId: string, channelId: string) {
  const channel = await requireChannel(ctx, orgId, channelId);
  const outcome = await deliverToChannel(ctx, channel, {
    event: 'test',
    text: `Planwarden test notification for channel "${channel.label}"`,
    url: null,
    data: { channel_id: channel.channel_id },
  });
  return { ok: outcome.ok, status_code: outcome.status_code, error: outcome.error };
}
