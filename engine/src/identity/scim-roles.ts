import { tryLinearPattern } from '../core/linear-regex';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import type { ScimConfigDoc } from './scim-store';
import type { OrgRole } from './types';

/**
 * The role group membership gives (identity-api.md "SCIM config" group_role_mappings): the
 * first mapping whose pattern matches (unanchored, case-sensitive, like RegExp.test) one of
 * `groupNames` wins; none → `default_role`. Never owner. Patterns run on the linear-time
 * engine (linear-regex.ts): a tenant's pattern cannot stall the server. A stored pattern RE2
 * cannot compile (saved before patterns were checked against RE2) matches nothing.
 */
export function roleForGroups(config: ScimConfigDoc, groupNames: readonly string[]): Exclude<OrgRole, 'owner'> {
  for (const mapping of config.group_role_mappings) {
    const pattern = tryLinearPattern(mapping.pattern);
    if (pattern && groupNames.some((name) => pattern.test(name))) return mapping.role;
  }
  return config.default_role;
}

/**
 * Recomputes the roles of `userIds` in the org from their current teams (SCIM groups) after a
 * group change. With no mappings configured roles are left alone (docs/decisions.md "SCIM
 * roles"); an owner is never changed. Returns `{user_id, before, after}` of the roles changed.
 */
export async function recomputeRoles(ctx: IdentityCtx, config: ScimConfigDoc, userIds: readonly string[]) {
  const changed: { user_id: string; before: OrgRole; after: OrgRole }[] = [];
  if (config.group_role_mappings.length === 0) return changed;
  const { teams, memberships } = ctx.engine.stores;
  const orgId = config.org_id;
  const [teamRows, teamMembers] = await Promise.all([teams.list(orgId), teams.membershipsOf(orgId)]);
  const names = new Map(teamRows.map((t) => [t.team_id, t.name]));
  for (const userId of new Set(userIds)) {
    const membership = await memberships.get(orgId, userId);
    if (!membership || membership.role === 'owner') continue;
    const groups = teamMembers.filter((m) => m.user_id === userId).map((m) => names.get(m.team_id) ?? m.team_id);
    const role = roleForGroups(config, groups);
    if (role === membership.role) continue;
    await memberships.update(orgId, userId, { role, updated_at: isoNow(ctx) });
    changed.push({ user_id: userId, before: membership.role, after: role });
  }
  return changed;
}
