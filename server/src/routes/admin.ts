import { NotFoundError } from '@planwarden/engine/core/errors';
import { recordAudit } from '@planwarden/engine/audit/record';
import { resetPassword, resetTwoFactor } from '@planwarden/engine/identity/member-service';
import { setSuperadmin } from '@planwarden/engine/identity/registration';
import { adminUpdateUser } from '@planwarden/engine/identity/user-service';
import type { OrgDoc } from '@planwarden/engine/orgs/org-store';
import { listOrgSummaries, orgSummary, requireOrg } from '@planwarden/engine/identity/admin-org-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import type { RequestContext } from '../http/request-context';
import { AdminAuditScope, AdminUserPatchSchema, LockSchema, SuperadminSchema, TwoFactorPolicySchema } from './identity.schema';
import { adminMemberRoutes } from './members';
import { auditRouteSet } from './metrics';
import { NO_QUERY, param, parseBody } from './shared';

/** Sets one org flag (lock or 2FA policy), audited with before/after; 404 unknown org. */
async function setOrgFlag(ctx: RequestContext, orgId: string, field: 'locked' | 'require_2fa', value: boolean, action: string) {
  const before = await ctx.engine.stores.orgs.get(orgId);
  if (!before) throw new NotFoundError('Organization not found');
  const after = (await ctx.engine.stores.orgs.update(orgId, { [field]: value } as Partial<OrgDoc>)) as OrgDoc;
  await recordAudit(identityCtx(ctx), {
    orgId,
    action,
    targetType: 'organization',
    targetId: orgId,
    before: { [field]: before[field] },
    after: { [field]: after[field] },
  });
  return { org_id: orgId, [field]: after[field] };
}

/**
 * identity-api.md "Platform administration" (superadmin; anonymous and the bootstrap key count
 * as superadmin): the superadmin grant, account updates and resets, org lock and 2FA policy.
 */
export function adminRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/admin/organizations',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: { organizations: await listOrgSummaries(identityCtx(ctx)) } }),
    }),
    route({
      method: 'get',
      path: '/admin/organizations/:org_id',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await orgSummary(identityCtx(ctx), param(req, 'org_id')) }),
    }),
    ...adminMemberRoutes(),
    ...auditRouteSet('/admin/organizations/:org_id/audit', 'superadmin', async (ctx, req, filters) => {
      const org = await requireOrg(identityCtx(ctx), param(req, 'org_id'));
      return ctx.engine.stores.audit.list(org.org_id, filters);
    }),
    ...auditRouteSet(
      '/admin/audit',
      'superadmin',
      (ctx, req, filters) => {
        const orgId = typeof req.query.org_id === 'string' && req.query.org_id ? req.query.org_id : undefined;
        return ctx.engine.stores.audit.unsafeListAll({ ...filters, orgId });
      },
      AdminAuditScope,
    ),
    route({
      method: 'post',
      path: '/admin/users/:user_id/superadmin',
      policy: 'superadmin',
      body: 'json',
      requestBody: SuperadminSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const { enabled } = parseBody(SuperadminSchema, req);
        const ictx = identityCtx(ctx);
        const changed = await setSuperadmin(ictx, param(req, 'user_id'), enabled);
        if (!changed) throw new NotFoundError('User not found');
        await recordAudit(ictx, {
          orgId: null,
          action: 'superadmin.grant',
          targetType: 'user',
          targetId: changed.after.user_id,
          before: { is_superadmin: changed.before.is_superadmin },
          after: { is_superadmin: changed.after.is_superadmin },
        });
        return { body: { user_id: changed.after.user_id, is_superadmin: changed.after.is_superadmin } };
      },
    }),
    route({
      method: 'patch',
      path: '/admin/users/:user_id',
      policy: 'superadmin',
      body: 'json',
      requestBody: AdminUserPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await adminUpdateUser(identityCtx(ctx), param(req, 'user_id'), parseBody(AdminUserPatchSchema, req)) }),
    }),
    route({
      method: 'post',
      path: '/admin/users/:user_id/reset-password',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await resetPassword(identityCtx(ctx), null, param(req, 'user_id')) }),
    }),
    route({
      method: 'post',
      path: '/admin/users/:user_id/2fa-reset',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await resetTwoFactor(identityCtx(ctx), null, param(req, 'user_id')) }),
    }),
    route({
      method: 'patch',
      path: '/admin/organizations/:org_id/lock',
      policy: 'superadmin',
      body: 'json',
      requestBody: LockSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await setOrgFlag(ctx, param(req, 'org_id'), 'locked', parseBody(LockSchema, req).locked, 'org.lock') }),
    }),
    route({
      method: 'patch',
      path: '/admin/organizations/:org_id/2fa-policy',
      policy: 'superadmin',
      body: 'json',
      requestBody: TwoFactorPolicySchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await setOrgFlag(ctx, param(req, 'org_id'), 'require_2fa', parseBody(TwoFactorPolicySchema, req).require_2fa, 'org.2fa_policy_update'),
      }),
    }),
  ];
}
