import { BadRequestError, ConflictError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { applyScimPatch, type PatchOperation } from './scim-patch';
import { listResponse, SCIM, type ScimListQuery } from './scim-resources';
import { recomputeRoles } from './scim-roles';
import type { ScimConfigDoc } from './scim-store';
import type { TeamDoc } from './types';

/**
 * SCIM Groups (RFC 7643 §4.2) over the org's teams (identity-api.md "SCIM"): `id` is the
 * team_id, `displayName` its name, `members` `{value: user_id, display: e-mail}`. Every
 * membership change recomputes the affected members' roles (scim-roles.ts).
 */

export interface ScimGroupInput {
  displayName?: string;
  externalId?: string | null;
  members?: { value?: string }[];
}

/** Presenter: one SCIM Group. */
export function presentScimGroup(team: TeamDoc, members: readonly { user_id: string; email: string }[], externalId: string | null, base: string) {
  return {
    schemas: [SCIM.group],
    id: team.team_id,
    ...(externalId ? { externalId } : {}),
    displayName: team.name,
    members: members.map((m) => ({ value: m.user_id, display: m.email, $ref: `${base}/Users/${m.user_id}` })),
    meta: { resourceType: 'Group', created: team.created_at, lastModified: team.updated_at, location: `${base}/Groups/${team.team_id}` },
  };
}

type ScimGroup = ReturnType<typeof presentScimGroup>;

async function loadAll(ctx: IdentityCtx, orgId: string, base: string, only?: string): Promise<ScimGroup[]> {
  const { teams, users, scim } = ctx.engine.stores;
  const rows = (await teams.list(orgId)).filter((t) => only === undefined || t.team_id === only);
  const [places, externalIds] = await Promise.all([teams.membershipsOf(orgId), scim.externalIds(orgId, 'group')]);
  const emails = new Map((await users.many([...new Set(places.map((p) => p.user_id))])).map((u) => [u.user_id, u.email]));
  return rows.map((t) =>
    presentScimGroup(
      t,
      places.filter((p) => p.team_id === t.team_id).map((p) => ({ user_id: p.user_id, email: emails.get(p.user_id) ?? '' })),
      externalIds.get(t.team_id) ?? null,
      base,
    ),
  );
}

async function present(ctx: IdentityCtx, orgId: string, teamId: string, base: string): Promise<ScimGroup> {
  const [group] = await loadAll(ctx, orgId, base, teamId);
  if (!group) throw new NotFoundError('Group not found');
  return group;
}

/** GET /Groups: ListResponse filtered (displayName, externalId, members.value...) and paged. */
export async function listScimGroups(ctx: IdentityCtx, config: ScimConfigDoc, query: ScimListQuery, base: string) {
  return listResponse(await loadAll(ctx, config.org_id, base), query);
}

/** GET /Groups/{id}; 404. */
export async function getScimGroup(ctx: IdentityCtx, config: ScimConfigDoc, teamId: string, base: string) {
  return present(ctx, config.org_id, teamId, base);
}

function displayNameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > 200)
    throw new BadRequestError('displayName: a non-empty string is required', { scimType: 'invalidValue' });
  return value.trim();
}

/** The member ids of a body (each must be a member of the org, else 400 invalidValue). */
async function memberIds(ctx: IdentityCtx, orgId: string, members: unknown): Promise<string[]> {
  const ids = [...new Set((Array.isArray(members) ? members : []).map((m) => String((m as { value?: unknown } | null)?.value ?? '')))];
  for (const id of ids) {
    if (!(await ctx.engine.stores.memberships.get(orgId, id)))
      throw new BadRequestError(`members: ${id} is not a user of this organization`, { scimType: 'invalidValue' });
  }
  return ids;
}

/**
 * Makes the team's members exactly `wanted`, recomputes the roles of everyone added or removed
 * and records scim.group.membership_synced (before/after member ids, roles changed) when
 * anything changed.
 */
async function syncMembers(ctx: IdentityCtx, config: ScimConfigDoc, teamId: string, wanted: readonly string[]): Promise<void> {
  const { teams } = ctx.engine.stores;
  const orgId = config.org_id;
  const current = (await teams.listMembers(orgId, teamId)).map((m) => m.user_id);
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  if (added.length === 0 && removed.length === 0) return;
  for (const userId of added) await teams.addMember({ org_id: orgId, team_id: teamId, user_id: userId, added_at: isoNow(ctx) });
  for (const userId of removed) await teams.removeMember(orgId, teamId, userId);
  const roles = await recomputeRoles(ctx, config, [...added, ...removed]);
  await recordAudit(ctx, {
    orgId,
    action: 'scim.group.membership_synced',
    targetType: 'team',
    targetId: teamId,
    before: { members: current },
    after: { members: [...wanted], roles_changed: roles },
  });
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'group'
  );
}

/** POST /Groups: a team named displayName (409 when a team of that name exists), with its members. Audited scim.group.created. */
export async function createScimGroup(ctx: IdentityCtx, config: ScimConfigDoc, input: ScimGroupInput, base: string) {
  const { teams, scim } = ctx.engine.stores;
  const orgId = config.org_id;
  const name = displayNameOf(input.displayName);
  if ((await teams.list(orgId)).some((t) => t.name === name)) throw new ConflictError(`A group named ${name} exists`, { scimType: 'uniqueness' });
  const members = await memberIds(ctx, orgId, input.members);
  let teamId = slug(name);
  for (let n = 2; await teams.exists(orgId, teamId); n += 1) teamId = `${slug(name)}-${n}`;
  const now = isoNow(ctx);
  const team: TeamDoc = { org_id: orgId, team_id: teamId, name, created_by: 'scim', created_at: now, updated_at: now };
  await teams.insert(team);
  if (input.externalId) await scim.setExternalId(orgId, 'group', teamId, input.externalId);
  await recordAudit(ctx, { orgId, action: 'scim.group.created', targetType: 'team', targetId: teamId, before: null, after: { team_id: teamId, name } });
  await syncMembers(ctx, config, teamId, members);
  return present(ctx, orgId, teamId, base);
}

/** Applies a patched or replaced group: rename (scim.group.renamed), externalId, members; recomputes affected roles. */
async function applyGroup(ctx: IdentityCtx, config: ScimConfigDoc, before: ScimGroup, after: Record<string, unknown>): Promise<void> {
  const orgId = config.org_id;
  const name = displayNameOf(after.displayName);
  if (name !== before.displayName) {
    await ctx.engine.stores.teams.update(orgId, before.id, { name, updated_at: isoNow(ctx) });
    await recordAudit(ctx, {
      orgId,
      action: 'scim.group.renamed',
      targetType: 'team',
      targetId: before.id,
      before: { name: before.displayName },
      after: { name },
    });
  }
  const externalId = after.externalId === undefined ? null : after.externalId;
  if (externalId !== (before.externalId ?? null))
    await ctx.engine.stores.scim.setExternalId(orgId, 'group', before.id, typeof externalId === 'string' ? externalId : null);
  await syncMembers(ctx, config, before.id, await memberIds(ctx, orgId, after.members));
  // A rename changes what the mappings see for every member of the group.
  if (name !== before.displayName) {
    const current = (await ctx.engine.stores.teams.listMembers(orgId, before.id)).map((m) => m.user_id);
    await recomputeRoles(ctx, config, current);
  }
}

/** PATCH /Groups/{id}: displayName and members (add, remove with `members[value eq "id"]`, replace). 404. */
export async function patchScimGroup(ctx: IdentityCtx, config: ScimConfigDoc, teamId: string, operations: readonly PatchOperation[], base: string) {
  const before = await present(ctx, config.org_id, teamId, base);
  await applyGroup(ctx, config, before, applyScimPatch(before, operations) as Record<string, unknown>);
  return present(ctx, config.org_id, teamId, base);
}

/** PUT /Groups/{id}: replaces displayName, externalId and members. 404. */
export async function replaceScimGroup(ctx: IdentityCtx, config: ScimConfigDoc, teamId: string, input: ScimGroupInput, base: string) {
  const before = await present(ctx, config.org_id, teamId, base);
  await applyGroup(ctx, config, before, { displayName: input.displayName, externalId: input.externalId ?? null, members: input.members ?? [] });
  return present(ctx, config.org_id, teamId, base);
}

/** DELETE /Groups/{id}: deletes the team and recomputes its former members' roles. 404. Audited scim.group.deleted. */
export async function deleteScimGroup(ctx: IdentityCtx, config: ScimConfigDoc, teamId: string): Promise<void> {
  const { teams, scim } = ctx.engine.stores;
  const before = await present(ctx, config.org_id, teamId, '');
  await teams.remove(config.org_id, teamId);
  await scim.removeLink(config.org_id, 'group', teamId);
  const roles = await recomputeRoles(
    ctx,
    config,
    before.members.map((m) => m.value),
  );
  await recordAudit(ctx, {
    orgId: config.org_id,
    action: 'scim.group.deleted',
    targetType: 'team',
    targetId: teamId,
    before: { name: before.displayName, members: before.members.map((m) => m.value) },
    after: { roles_changed: roles },
  });
}
