import type { Request } from 'express';
import {
  addMember,
  listMembers,
  orgResetPassword,
  orgResetTwoFactor,
  removeMember,
  resetPassword,
  resetTwoFactor,
  updateMember,
} from '@planwarden/engine/identity/member-service';
import { requireOrg } from '@planwarden/engine/identity/admin-org-service';
import { identityCtx } from '../auth/identity';
import { effectiveRole } from '../auth/policy';
import { route, type Policy, type RouteDef } from '../http/route';
import type { RequestContext } from '../http/request-context';
import { AddMemberSchema, UpdateMemberSchema } from './identity.schema';
import { NO_QUERY, param, parseBody } from './shared';

interface MemberSurface {
  readonly base: string;
  readonly read: Policy;
  readonly write: Policy;
  /** The org acted on: the caller's own (org routes) or the path's after a 404 check (admin mirror). */
  readonly orgOf: (ctx: RequestContext, req: Request) => Promise<string>;
  readonly twoFactorSpellings: readonly string[];
  /** The credential resets of this surface (org admins: stewardship-checked; superadmins: not). */
  readonly resets: MemberResets;
}

interface MemberResets {
  readonly password: (ctx: RequestContext, orgId: string, userId: string) => Promise<{ temporary_password: string }>;
  readonly twoFactor: (ctx: RequestContext, orgId: string, userId: string) => Promise<{ detail: string }>;
}

/**
 * Org admins reset only accounts their org administers, at their effective role
 * (engine/src/identity/account-stewardship.ts, docs/decisions.md).
 */
const ORG_RESETS: MemberResets = {
  password: (ctx, orgId, userId) => orgResetPassword(identityCtx(ctx), orgId, userId, effectiveRole(ctx.principal)),
  twoFactor: (ctx, orgId, userId) => orgResetTwoFactor(identityCtx(ctx), orgId, userId, effectiveRole(ctx.principal)),
};

/** Superadmins on the /admin mirror keep the unrestricted resets. */
const PLATFORM_RESETS: MemberResets = {
  password: (ctx, orgId, userId) => resetPassword(identityCtx(ctx), orgId, userId),
  twoFactor: (ctx, orgId, userId) => resetTwoFactor(identityCtx(ctx), orgId, userId),
};

/** List, patch, delete and the resets of one member surface (identical guardrails on both). */
function memberSurface(s: MemberSurface): RouteDef[] {
  const reset2fa = (segment: string) =>
    route({
      method: 'post',
      path: `${s.base}/:user_id/${segment}`,
      policy: s.write,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await s.resets.twoFactor(ctx, await s.orgOf(ctx, req), param(req, 'user_id')) }),
    });
  return [
    route({
      method: 'get',
      path: s.base,
      policy: s.read,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: { members: await listMembers(identityCtx(ctx), await s.orgOf(ctx, req)) } }),
    }),
    route({
      method: 'patch',
      path: `${s.base}/:user_id`,
      policy: s.write,
      body: 'json',
      requestBody: UpdateMemberSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const orgId = await s.orgOf(ctx, req);
        return { body: await updateMember(identityCtx(ctx), orgId, param(req, 'user_id'), parseBody(UpdateMemberSchema, req)) };
      },
    }),
    route({
      method: 'delete',
      path: `${s.base}/:user_id`,
      policy: s.write,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await removeMember(identityCtx(ctx), await s.orgOf(ctx, req), param(req, 'user_id'));
        return { status: 204 };
      },
    }),
    route({
      method: 'post',
      path: `${s.base}/:user_id/reset-password`,
      policy: s.write,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await s.resets.password(ctx, await s.orgOf(ctx, req), param(req, 'user_id')) }),
    }),
    ...s.twoFactorSpellings.map(reset2fa),
  ];
}

/**
 * identity-api.md "Organizations": members of the caller's org (the router answers 404 for
 * another path org). Both spellings of the 2FA reset are served; the resets reach only
 * accounts this org administers (403 otherwise).
 */
export function memberRoutes(): RouteDef[] {
  const base = '/orgs/:org_id/members';
  return [
    route({
      method: 'post',
      path: base,
      policy: 'admin',
      body: 'json',
      requestBody: AddMemberSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await addMember(identityCtx(ctx), ctx.orgId, parseBody(AddMemberSchema, req)) }),
    }),
    ...memberSurface({
      base,
      read: 'viewer',
      write: 'admin',
      orgOf: async (ctx) => ctx.orgId,
      twoFactorSpellings: ['reset-2fa', '2fa-reset'],
      resets: ORG_RESETS,
    }),
  ];
}

/** identity-api.md "Platform administration": the member mirror under /admin/organizations/{org_id}. */
export function adminMemberRoutes(): RouteDef[] {
  return memberSurface({
    base: '/admin/organizations/:org_id/members',
    read: 'superadmin',
    write: 'superadmin',
    orgOf: async (ctx, req) => (await requireOrg(identityCtx(ctx), param(req, 'org_id'))).org_id,
    twoFactorSpellings: ['2fa-reset', 'reset-2fa'],
    resets: PLATFORM_RESETS,
  });
}
