import { requireOrg } from '@planwarden/engine/identity/admin-org-service';
import { identityCtx } from '../auth/identity';
import type { RouteDef } from '../http/route';
import { customRuleSurface } from './custom-rules';
import { param } from './shared';

/** Prefix of the superadmin mirror (identity-api.md leaves the paths below it "not shown"; docs/decisions.md). */
export const ADMIN_CUSTOM_RULES_BASE = '/admin/custom-rules/:org_id';

/**
 * identity-api.md "Platform administration": the `/admin/custom-rules` mirror. Superadmins manage
 * any org's custom rules and categories at `/admin/custom-rules/{org_id}/rules[...]` and
 * `/admin/custom-rules/{org_id}/rule-categories[...]`, with the org surface's bodies, statuses and
 * audit events; an unknown org answers 404.
 */
export function adminCustomRuleRoutes(): RouteDef[] {
  return customRuleSurface({
    base: ADMIN_CUSTOM_RULES_BASE,
    read: 'superadmin',
    write: 'superadmin',
    orgOf: async (ctx, req) => (await requireOrg(identityCtx(ctx), param(req, 'org_id'))).org_id,
  });
}
