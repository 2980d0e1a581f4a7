import { ForbiddenError } from '../errors';
import type { IdentityCtx } from './context';
import { ORG_ROLE_RANK, type MembershipDoc, type OrgRole, type UserDoc } from './types';

/**
 * Whether the org of `membership` administers the account `user`, so that one of its admins at
 * `callerRole` may reset the account's password or second factor (docs/decisions.md "Org
 * resets reach only accounts the org administers"). Accounts are platform-wide, so an org reset
 * reaches every org the account belongs to; it is allowed only when:
 * - the account is not a superadmin;
 * - the account did not come in through add-by-e-mail (`added_by_email`: it never chose the org);
 * - the account has no active membership in any other org;
 * - its role in this org is not above `callerRole` (an admin cannot reset an owner).
 * Throws ForbiddenError (403) whose detail names the failed condition; superadmins use the
 * /admin mirrors instead.
 */
export async function assertOrgAdministersAccount(ctx: IdentityCtx, membership: MembershipDoc, user: UserDoc, callerRole: OrgRole): Promise<void> {
  const elsewhere = ' Ask a platform administrator, or the account holder can change it themselves.';
  if (user.is_superadmin) throw new ForbiddenError(`The account is a platform administrator; this organization does not administer it.${elsewhere}`);
  if (membership.added_by_email) {
    throw new ForbiddenError(`The account was added to this organization by e-mail and did not join through it; this organization does not administer it.${elsewhere}`);
  }
  const memberships = await ctx.engine.stores.memberships.forUser(user.user_id);
  if (memberships.some((m) => m.org_id !== membership.org_id && m.is_active)) {
    throw new ForbiddenError(`The account is an active member of other organizations; this organization does not administer it.${elsewhere}`);
  }
  if (ORG_ROLE_RANK[membership.role] > ORG_ROLE_RANK[callerRole]) {
    throw new ForbiddenError(`The member's role (${membership.role}) is above yours (${callerRole}); only a role at or above it may reset its credentials`);
  }
}
