import { NotFoundError } from '@planwarden/engine/core/errors';
import { leaveOrganization } from '@planwarden/engine/identity/member-service';
import { createOrganization, getOrganization, presentOrgInfo } from '@planwarden/engine/identity/org-service';
import { currentUser, mintSessionFor } from '../auth/account-service';
import { identityCtx } from '../auth/identity';
import { authorizeOrgMember } from '../auth/policy';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { assertMayCreateOrg } from './auth';
import { CreateOrgSchema } from './identity.schema';
import { sessionReply } from './session-reply';
import { NO_QUERY, param, parseBody } from './shared';

/** identity-api.md "Organizations": create, info, leave (POST /orgs/{org_id}/leave, docs/decisions.md). */
export function orgRoutes(services: ServerServices): RouteDef[] {
  const ids = services.identity;
  return [
    route({
      method: 'post',
      path: '/orgs',
      policy: 'human',
      nonHumanStatus: 403,
      body: 'json',
      requestBody: CreateOrgSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const input = parseBody(CreateOrgSchema, req);
        assertMayCreateOrg(services, ctx.principal.isSuperadmin);
        const ictx = identityCtx(ctx);
        const user = await currentUser(ictx);
        const maxCreated = ctx.principal.isSuperadmin ? null : services.config.registration.max_orgs_per_account;
        const { org } = await createOrganization(ictx, { name: input.name, ownerUserId: user.user_id, maxCreated });
        return { status: 201, body: { org_id: org.org_id, name: org.name, role: 'owner' } };
      },
    }),
    route({
      // "Member of that org": 403 not a member, 404 unknown (identity-api.md), so the check is
      // authorizeOrgMember's rather than the router's tenancy 404; it also serves a session's
      // other orgs (at that membership's role).
      method: 'get',
      path: '/orgs/:org_id',
      policy: 'authenticated',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const orgId = param(req, 'org_id');
        await authorizeOrgMember(ctx.principal, orgId, ctx.engine.stores);
        return { body: presentOrgInfo(await getOrganization(identityCtx(ctx), orgId)) };
      },
    }),
    route({
      method: 'post',
      path: '/orgs/:org_id/leave',
      policy: 'human',
      nonHumanStatus: 403,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        if (param(req, 'org_id') !== ctx.principal.orgId) throw new NotFoundError('Organization not found');
        const ictx = identityCtx(ctx);
        const user = await currentUser(ictx);
        const left = await leaveOrganization(ictx, user.user_id, ctx.orgId);
        const session = await mintSessionFor(ids, ictx, (await ctx.engine.stores.users.get(user.user_id)) ?? user, left.org_id);
        return sessionReply(ids, session, 200, left);
      },
    }),
  ];
}
