import {
  CreateChannelSchema,
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  testChannel,
  updateChannel,
  UpdateChannelSchema,
} from '@planwarden/engine/notify/channel-service';
import { listEvents } from '@planwarden/engine/notify/events';
import { route, type RouteDef } from '../http/route';
import { ownOrg } from './org-path';
import { NO_QUERY, param, parseBody } from './shared';

const CHANNELS = '/orgs/:org_id/notifications/channels';
const CHANNEL = `${CHANNELS}/:channel_id`;

/**
 * analysis-api.md "Notification channels": the event catalogue (any member) and the channel
 * endpoints (admin). Target URLs go through the egress policy at save (422 naming the rule and
 * the setting) and again at every delivery (net/egress.ts).
 */
export function notificationRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/notifications/events',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: listEvents(ctx.engine) }),
    }),
    route({
      method: 'post',
      path: CHANNELS,
      policy: 'admin',
      body: 'json',
      query: NO_QUERY,
      requestBody: CreateChannelSchema,
      handler: async (ctx, req) => ({ status: 201, body: await createChannel(ctx.engine, ownOrg(ctx, req), parseBody(CreateChannelSchema, req)) }),
    }),
    route({
      method: 'get',
      path: CHANNELS,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await listChannels(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'get',
      path: CHANNEL,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getChannel(ctx.engine, ownOrg(ctx, req), param(req, 'channel_id')) }),
    }),
    route({
      method: 'patch',
      path: CHANNEL,
      policy: 'admin',
      body: 'json',
      query: NO_QUERY,
      requestBody: UpdateChannelSchema,
      handler: async (ctx, req) => ({ body: await updateChannel(ctx.engine, ownOrg(ctx, req), param(req, 'channel_id'), parseBody(UpdateChannelSchema, req)) }),
    }),
    route({
      method: 'delete',
      path: CHANNEL,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteChannel(ctx.engine, ownOrg(ctx, req), param(req, 'channel_id')) }),
    }),
    route({
      method: 'post',
      path: `${CHANNEL}/test`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await testChannel(ctx.engine, ownOrg(ctx, req), param(req, 'channel_id')) }),
    }),
  ];
}
