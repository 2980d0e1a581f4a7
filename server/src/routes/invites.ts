import { createInvite, listInvites, previewInvite, revokeInvite } from '@planwarden/engine/identity/invite-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { CreateInviteSchema } from './identity.schema';
import { NO_QUERY, param, parseBody } from './shared';

/**
 * identity-api.md "Invitations": create, list (GET /orgs/{org_id}/invites, docs/decisions.md),
 * revoke, public preview. Acceptance routes live with the session routes (routes/auth.ts).
 */
export function inviteRoutes(services: ServerServices): RouteDef[] {
  const joinBase = () => services.config.server.dashboard_base_url ?? services.config.server.public_base_url ?? '';
  return [
    route({
      method: 'post',
      path: '/orgs/:org_id/invites',
      policy: 'admin',
      body: 'json',
      requestBody: CreateInviteSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const input = parseBody(CreateInviteSchema, req);
        return { status: 201, body: await createInvite(identityCtx(ctx), ctx.orgId, { role: input.role, email: input.email ?? null }, joinBase()) };
      },
    }),
    route({
      method: 'get',
      path: '/orgs/:org_id/invites',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: { invites: await listInvites(identityCtx(ctx), ctx.orgId) } }),
    }),
    route({
      method: 'delete',
      path: '/orgs/:org_id/invites/:invite_id',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await revokeInvite(identityCtx(ctx), ctx.orgId, param(req, 'invite_id'));
        return { status: 204 };
      },
    }),
    route({
      method: 'get',
      path: '/invite/:token',
      policy: 'public',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await previewInvite(identityCtx(ctx), param(req, 'token')) }),
    }),
  ];
}
