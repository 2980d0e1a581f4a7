import { ForbiddenError } from '../core/errors';
import type { IdentityCtx } from '../context/identity-context';
import { ORG_ROLE_RANK, type MembershipDoc, type OrgRole, type UserDoc } from './types';

/**
 * How far apart an account's and a membership's `created_at` may be for a membership stored
 * before `created_account` existed to count as created with the account. Every flow that
 * creates an account into an org (registration, invited sign-up, SCIM, SSO) writes both in one
 * request, milliseconds apart; joining with an existing account is a later request.
 */
export const LEGACY_CREATED_WINDOW_MS = 5_000;

/**
 * Whether `membership` is the one through which its org created `user` (docs/decisions.md
 * "Org stewardship follows provenance"). A membership written since the field exists says so
 * in `created_account`. An older one (field absent) counts as created only when it was not an
 * add by e-mail, is the account's first membership and was stored within
 * LEGACY_CREATED_WINDOW_MS of the account itself; `all` is every membership of the account.
 */
export function orgCreatedAccount(membership: MembershipDoc, user: UserDoc, all: readonly MembershipDoc[]): boolean {
  if (membership.created_account !== undefined) return membership.created_account === true;
  if (membership.added_by_email) return false;
  const first = [...all].sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
  if (!first || first.org_id !== membership.org_id) return false;
  const gap = Date.parse(membership.created_at) - Date.parse(user.created_at);
  return gap >= 0 && gap <= LEGACY_CREATED_WINDOW_MS;
}

/**
 * Whether the org of `membership` administers the account `user`, so that one of its admins at
 * `callerRole` may reset the account's password or second factor (docs/decisions.md "Org
 * resets reach only accounts the org administers", "Org stewardship follows provenance").
 * Accounts are platform-wide, so an org reset reaches every org the account belongs to; it is
 * allowed only when:
 * - the account is not a superadmin;
 * - this org created the account (`orgCreatedAccount`: registration into the org, an invitation
 *   redeemed by signing up, SCIM or SSO provisioning a new account) — an account that existed
 *   before it was added by e-mail, linked by SCIM or accepted an invitation is its holder's;
 * - the account has no active membership in any other org;
 * - its role in this org is not above `callerRole` (an admin cannot reset an owner).
 * Throws ForbiddenError (403) whose detail names the failed condition; superadmins use the
 * /admin mirrors instead.
 */
export async function assertOrgAdministersAccount(ctx: IdentityCtx, membership: MembershipDoc, user: UserDoc, callerRole: OrgRole): Promise<void> {
  const elsewhere = ' Ask a platform administrator, or the account holder can change it themselves.';
  if (user.is_superadmin) throw new ForbiddenError(`The account is a platform administrator; this organization does not administer it.${elsewhere}`);
  const memberships = await ctx.engine.stores.memberships.forUser(user.user_id);
  if (!orgCreatedAccount(membership, user, memberships)) {
    const how = membership.added_by_email ? 'was added to this organization by e-mail' : 'existed before it joined this organization';
    throw new ForbiddenError(`The account ${how}; this organization did not create it and does not administer it.${elsewhere}`);
  }
  if (memberships.some((m) => m.org_id !== membership.org_id && m.is_active)) {
    throw new ForbiddenError(`The account is an active member of other organizations; this organization does not administer it.${elsewhere}`);
  }
  if (ORG_ROLE_RANK[membership.role] > ORG_ROLE_RANK[callerRole]) {
    throw new ForbiddenError(`The member's role (${membership.role}) is above yours (${callerRole}); only a role at or above it may reset its credentials`);
  }
}

/**
 * ForbiddenError (403) when `user` is a platform administrator: a tenant's admin (adding by
 * e-mail) or its identity provider (SCIM) never places a superadmin account in its org; the
 * account joins an org only by its own action (docs/decisions.md "Superadmins are never placed
 * in tenant orgs").
 */
export function assertMayPlaceInOrg(user: UserDoc): void {
  if (user.is_superadmin) {
    throw new ForbiddenError('The account is a platform administrator; an organization cannot add it. It can join through an invitation it accepts itself');
  }
}
