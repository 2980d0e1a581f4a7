import type { Request } from 'express';
import {
  addMember, listMembers, removeMember, resetPassword, resetTwoFactor, updateMember,
} from '@planwarden/engine/identity/member-service';
import { requireOrg } from '@planwarden/engine/identity/admin-org-service';
import { identityCtx } from '../auth/identity';
import { route, type Policy, type RouteDef } from '../http/route';
import type { RequestContext } from '../http/request-context';
import { AddMemberSchema, UpdateMemberSchema } from './identity.schema';
import { param, parseBody } from './shared';

interface MemberSurface {
  readonly base: string;
  readonly read: Policy;
  readonly write: Policy;
  /** The org acted on: the caller's own (org routes) or the path's after a 404 check (admin mirror). */
  readonly orgOf: (ctx: RequestContext, req: Request) => Promise<string>;
  readonly twoFactorSpellings: readonly string[];
}

/** List, patch, delete and the resets of one member surface (identical guardrails on both). */
function memberSurface(s: MemberSurface): RouteDef[] {
  const reset2fa = (segment: string) => route({
    method: 'post', path: `${s.base}/:user_id/${segment}`, policy: s.write, body: 'none',
    handler: async (ctx, req) => ({ body: await resetTwoFactor(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'user_id')) }),
  });
  return [
    route({
      method: 'get', path: s.base, policy: s.read, body: 'none',
      handler: async (ctx, req) => ({ body: { members: await listMembers(identityCtx(ctx), await s.orgOf(ctx, req)) } }),
    }),
    route({
      method: 'patch', path: `${s.base}/:user_id`, policy: s.write, body: 'json',
      handler: async (ctx, req) => {
        const orgId = await s.orgOf(ctx, req);
        return { body: await updateMember(identityCtx(ctx), orgId, param(req, 'user_id'), parseBody(UpdateMemberSchema, req)) };
      },
    }),
    route({
      method: 'delete', path: `${s.base}/:user_id`, policy: s.write, body: 'none',
      handler: async (ctx, req) => {
        await removeMember(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'user_id'));
        return { status: 204 };
      },
    }),
    route({
      method: 'post', path: `${s.base}/:user_id/reset-password`, policy: s.write, body: 'none',
      handler: async (ctx, req) => ({ body: await resetPassword(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'user_id')) }),
    }),
    ...s.twoFactorSpellings.map(reset2fa),
  ];
}

/**
 * identity-api.md "Organizations": members of the caller's org (the router answers 404 for
 * another path org). Both spellings of the 2FA reset are served.
 */
export function memberRoutes(): RouteDef[] {
  const base = '/orgs/:org_id/members';
  return [
    route({
      method: 'post', path: base, policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ status: 201, body: await addMember(identityCtx(ctx), ctx.orgId, parseBody(AddMemberSchema, req)) }),
    }),
    ...memberSurface({ base, read: 'viewer', write: 'admin', orgOf: async (ctx) => ctx.orgId, twoFactorSpellings: ['reset-2fa', '2fa-reset'] }),
  ];
}

/** identity-api.md "Platform administration": the member mirror under /admin/organizations/{org_id}. */
export function adminMemberRoutes(): RouteDef[] {
  return memberSurface({
    base: '/admin/organizations/:org_id/members', read: 'superadmin', write: 'superadmin',
    orgOf: async (ctx, req) => (await requireOrg(identityCtx(ctx), param(req, 'org_id'))).org_id,
    twoFactorSpellings: ['2fa-reset', 'reset-2fa'],
  });
}
