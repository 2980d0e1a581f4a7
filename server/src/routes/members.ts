import {
  addMember, listMembers, removeMember, resetPassword, resetTwoFactor, updateMember,
} from '@planwarden/engine/identity/member-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import { AddMemberSchema, UpdateMemberSchema } from './identity.schema';
import { param, parseBody } from './shared';

const BASE = '/orgs/:org_id/members';

/**
 * identity-api.md "Organizations": members of the caller's org (the path org must be it; the
 * router answers 404 otherwise). Both spellings of the 2FA reset are served.
 */
export function memberRoutes(): RouteDef[] {
  const reset2fa = (path: string) => route({
    method: 'post', path, policy: 'admin', body: 'none',
    handler: async (ctx, req) => ({ body: await resetTwoFactor(identityCtx(ctx), ctx.orgId, param(req, 'user_id')) }),
  });
  return [
    route({
      method: 'get', path: BASE, policy: 'viewer', body: 'none',
      handler: async (ctx) => ({ body: { members: await listMembers(identityCtx(ctx), ctx.orgId) } }),
    }),
    route({
      method: 'post', path: BASE, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ status: 201, body: await addMember(identityCtx(ctx), ctx.orgId, parseBody(AddMemberSchema, req)) }),
    }),
    route({
      method: 'patch', path: `${BASE}/:user_id`, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ body: await updateMember(identityCtx(ctx), ctx.orgId, param(req, 'user_id'), parseBody(UpdateMemberSchema, req)) }),
    }),
    route({
      method: 'delete', path: `${BASE}/:user_id`, policy: 'admin', body: 'none',
      handler: async (ctx, req) => {
        await removeMember(identityCtx(ctx), ctx.orgId, param(req, 'user_id'));
        return { status: 204 };
      },
    }),
    route({
      method: 'post', path: `${BASE}/:user_id/reset-password`, policy: 'admin', body: 'none',
      handler: async (ctx, req) => ({ body: await resetPassword(identityCtx(ctx), ctx.orgId, param(req, 'user_id')) }),
    }),
    reset2fa(`${BASE}/:user_id/reset-2fa`),
    reset2fa(`${BASE}/:user_id/2fa-reset`),
  ];
}
