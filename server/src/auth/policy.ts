import { AppError, ForbiddenError, LockedError, NotFoundError, UnauthorizedError } from '@planwarden/engine/errors';
import type { Stores } from '@planwarden/engine/stores';
import type { Policy, RouteDef } from '../http/route';
import { ROLE_RANK, type Principal, type Role } from '../http/request-context';

const ROLES = new Set<string>(Object.keys(ROLE_RANK));

/** Whether a policy is an org role (an org-scoped route). */
export function isRolePolicy(policy: string): policy is Role {
  return ROLES.has(policy);
}

/**
 * Whether `principal` may call `def` (identity-api.md "Authentication", "Rules by role",
 * "States and transitions"). In order:
 * - `public`/`authenticated`: allowed; `human`: sessions only (anonymous 401, a key
 *   `def.nonHumanStatus` or 400); `superadmin`: the flag, else 403;
 * - org roles: a path `{org_id}` other than the principal's org → 404 (no signal, superadmins
 *   too); no org → 403; the org missing → 404; locked → 423 for every role; a session's
 *   membership must still exist and be active → 403; `require_2fa` and a human session without
 *   2FA → 403 (keys exempt); role below the policy → 403.
 */
export async function authorizeRoute(principal: Principal, def: Pick<RouteDef, 'policy' | 'nonHumanStatus'>, params: Record<string, unknown>, stores: Stores): Promise<void> {
  const policy = def.policy;
  if (policy === 'public' || policy === 'authenticated') return;
  if (policy === 'human') {
    if (principal.kind === 'session') return;
    if (principal.kind === 'anonymous') throw new UnauthorizedError('Sign in first: this endpoint needs a user session');
    throw new AppError(def.nonHumanStatus ?? 400, 'This endpoint needs a user session, not an API key');
  }
  if (policy === 'superadmin') {
    if (!principal.isSuperadmin) throw new ForbiddenError('Platform administrators only');
    return;
  }
  if (!isRolePolicy(policy)) throw new ForbiddenError('This route declares no known policy'); // fail closed
  const pathOrg = typeof params.org_id === 'string' ? params.org_id : null;
  if (pathOrg !== null && pathOrg !== principal.orgId) throw new NotFoundError('Organization not found');
  if (principal.orgId === null || principal.role === null) throw new ForbiddenError('No organization selected');
  const org = await stores.orgs.get(principal.orgId);
  if (!org) throw new NotFoundError('Organization not found');
  if (org.locked) throw new LockedError('The organization is locked');
  if (principal.kind === 'session' && principal.userId) {
    const membership = await stores.memberships.get(org.org_id, principal.userId);
    if (!membership || !membership.is_active) throw new ForbiddenError('Not an active member of this organization');
    if (org.require_2fa && !principal.twoFactorEnabled) throw new ForbiddenError('This organization requires two-factor authentication');
  }
  if (ROLE_RANK[principal.role] < ROLE_RANK[policy]) throw new ForbiddenError(`This action needs the ${policy} role`);
}

/**
 * The role-only part of the check for callers that resolved the org elsewhere (the MCP
 * transport): `public`/`authenticated` pass; `human` needs a session; `superadmin` the flag;
 * a role needs an org and at least that role. Throws ForbiddenError / UnauthorizedError.
 * HTTP routes use `authorizeRoute`, which also enforces lock, 2FA policy and tenancy.
 */
export function authorize(principal: Principal, policy: Policy): void {
  if (policy === 'public' || policy === 'authenticated') return;
  if (policy === 'human') {
    if (principal.kind !== 'session') throw new UnauthorizedError('This endpoint needs a user session');
    return;
  }
  if (policy === 'superadmin') {
    if (!principal.isSuperadmin) throw new ForbiddenError('Platform administrators only');
    return;
  }
  if (principal.orgId === null || principal.role === null) throw new ForbiddenError('No organization selected');
  if (ROLE_RANK[principal.role] < ROLE_RANK[policy]) throw new ForbiddenError(`This action needs the ${policy} role`);
}
