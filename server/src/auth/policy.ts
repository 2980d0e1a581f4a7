import { AppError, ForbiddenError, LockedError, NotFoundError, UnauthorizedError } from '@planwarden/engine/core/errors';
import type { MembershipDoc } from '@planwarden/engine/identity/types';
import type { OrgDoc } from '@planwarden/engine/orgs/org-store';
import type { Stores } from '@planwarden/engine/context/engine-context';
import type { RouteDef } from '../http/route';
import { ROLE_RANK, type Principal, type Role } from '../http/request-context';

const ROLES = new Set<string>(Object.keys(ROLE_RANK));

/** Whether a policy is an org role (an org-scoped route). */
export function isRolePolicy(policy: string): policy is Role {
  return ROLES.has(policy);
}

/** The lower of two roles on the ladder viewer < member < admin < owner. */
export function lowerRole(a: Role, b: Role): Role {
  return ROLE_RANK[a] <= ROLE_RANK[b] ? a : b;
}

/**
 * The effective org role of a principal that passed an org-role policy (`authorizeRoute`
 * lowered a session's claim to its current membership role). ForbiddenError (403) when it has
 * none, which a role policy never lets through.
 */
export function effectiveRole(principal: Principal): Role {
  if (principal.role === null) throw new ForbiddenError('No organization selected');
  return principal.role;
}

/** The membership of a session's account in `orgId` when it exists and is active, else null. */
async function activeMembership(stores: Stores, orgId: string, userId: string): Promise<MembershipDoc | null> {
  const membership = await stores.memberships.get(orgId, userId);
  return membership?.is_active ? membership : null;
}

/**
 * A session's role in its org as of now (docs/decisions.md "Effective role"): the role claim is
 * fixed at mint time (identity-api.md "Session"), so a demotion since then must not leave the
 * old role in force. The effective role is the lower of the claim and the membership's current
 * role, or null with no active membership. Other principals (keys, bootstrap, anonymous) and
 * org-less sessions come back unchanged.
 */
async function withCurrentRole(principal: Principal, stores: Stores): Promise<Principal> {
  if (principal.kind !== 'session' || principal.userId === null || principal.orgId === null) return principal;
  const membership = await activeMembership(stores, principal.orgId, principal.userId);
  return scopedSession(principal, membership);
}

function scopedSession(principal: Principal, membership: MembershipDoc | null): Principal {
  const role = membership === null || principal.role === null ? null : lowerRole(principal.role, membership.role);
  return role === principal.role ? principal : { ...principal, role };
}

/** The non-org policies: `human` (sessions), `superadmin` (the flag), `authenticated` (anyone). */
function checkUnscoped(principal: Principal, def: Pick<RouteDef, 'policy' | 'nonHumanStatus'>): void {
  if (def.policy === 'human') {
    if (principal.kind === 'session') return;
    if (principal.kind === 'anonymous') throw new UnauthorizedError('Sign in first: this endpoint needs a user session');
    throw new AppError(def.nonHumanStatus ?? 400, 'This endpoint needs a user session, not an API key');
  }
  if (def.policy === 'superadmin' && !principal.isSuperadmin) throw new ForbiddenError('Platform administrators only');
}

/**
 * The org-scoped checks after the org was found: lock → 423 for every role; for a session, an
 * active membership (else 403), the org's `require_2fa` (403 without 2FA; keys are exempt) and
 * the effective role (lower of claim and membership). Returns the principal at that role.
 */
async function inOrg(principal: Principal, org: OrgDoc, stores: Stores): Promise<Principal> {
  if (org.locked) throw new LockedError('The organization is locked');
  if (principal.kind !== 'session' || principal.userId === null) return principal;
  const membership = await activeMembership(stores, org.org_id, principal.userId);
  if (!membership) throw new ForbiddenError('Not an active member of this organization');
  // identity-api.md "Single sign-on": a session established through this org's SSO satisfies require_2fa.
  if (org.require_2fa && !principal.twoFactorEnabled && principal.ssoOrgId !== org.org_id)
    throw new ForbiddenError('This organization requires two-factor authentication');
  return scopedSession(principal, membership);
}

/**
 * Whether `principal` may call `def` (identity-api.md "Authentication", "Rules by role",
 * "States and transitions"), returning the effective principal the handler, its spans and its
 * audit records must see. In order:
 * - `public`: allowed, principal unchanged; `authenticated`: allowed; `human`: sessions only
 *   (anonymous 401, a key `def.nonHumanStatus` or 400); `superadmin`: the flag, else 403.
 *   A session's role is still lowered to its current membership role (null without one).
 * - org roles: a path `{org_id}` other than the principal's org → 404 (no signal, superadmins
 *   too); no org → 403; the org missing → 404; locked → 423 for every role; a session's
 *   membership must still exist and be active → 403; `require_2fa` and a human session without
 *   2FA → 403 (keys exempt); effective role below the policy → 403. A session's effective
 *   role is the lower of its role claim and its membership's current role, on every request.
 */
export async function authorizeRoute(
  principal: Principal,
  def: Pick<RouteDef, 'policy' | 'nonHumanStatus'>,
  params: Record<string, unknown>,
  stores: Stores,
): Promise<Principal> {
  const policy = def.policy;
  if (policy === 'public') return principal;
  if (policy === 'authenticated' || policy === 'human' || policy === 'superadmin') {
    checkUnscoped(principal, def);
    return withCurrentRole(principal, stores);
  }
  if (!isRolePolicy(policy)) throw new ForbiddenError('This route declares no known policy'); // fail closed
  const pathOrg = typeof params.org_id === 'string' ? params.org_id : null;
  if (pathOrg !== null && pathOrg !== principal.orgId) throw new NotFoundError('Organization not found');
  if (principal.orgId === null || principal.role === null) throw new ForbiddenError('No organization selected');
  const org = await stores.orgs.get(principal.orgId);
  if (!org) throw new NotFoundError('Organization not found');
  const effective = await inOrg(principal, org, stores);
  if (effective.role === null || ROLE_RANK[effective.role] < ROLE_RANK[policy]) throw new ForbiddenError(`This action needs the ${policy} role`);
  return effective;
}

/**
 * GET /orgs/{org_id} (identity-api.md "Organizations": "member of that org"; 403 not a member;
 * 404): the caller's own org, or for a session another org it is an active member of (at that
 * membership's role). Unknown org → 404; not a member (other org's key, superadmin outside the
 * org) → 403; then the usual lock 423 / 2FA 403 of that org. Returns the principal scoped to
 * `orgId`.
 */
export async function authorizeOrgMember(principal: Principal, orgId: string, stores: Stores): Promise<Principal> {
  const org = await stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  if (principal.orgId === orgId) return authorizeRoute(principal, { policy: 'viewer' }, { org_id: orgId }, stores);
  const membership = principal.kind === 'session' && principal.userId !== null ? await activeMembership(stores, orgId, principal.userId) : null;
  if (!membership) throw new ForbiddenError('Not a member of this organization');
  return inOrg({ ...principal, orgId, role: membership.role }, org, stores);
}
