import { ConflictError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import type { TeamDoc } from './types';

/** Presenter: identity-api.md "Team". */
export function presentTeam(t: TeamDoc) {
  return { team_id: t.team_id, org_id: t.org_id, name: t.name, created_by: t.created_by, created_at: t.created_at, updated_at: t.updated_at };
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'team'
  );
}

async function requireTeam(ctx: IdentityCtx, orgId: string, teamId: string): Promise<TeamDoc> {
  const team = await ctx.engine.stores.teams.get(orgId, teamId);
  if (!team) throw new NotFoundError('Team not found');
  return team;
}

/** POST /orgs/{org_id}/teams: team_id is the name's slug, suffixed -2, -3... when taken. Audited team.create. */
export async function createTeam(ctx: IdentityCtx, orgId: string, input: { name: string }) {
  const base = slug(input.name);
  let teamId = base;
  for (let n = 2; await ctx.engine.stores.teams.exists(orgId, teamId); n += 1) teamId = `${base}-${n}`;
  const now = isoNow(ctx);
  const team: TeamDoc = { org_id: orgId, team_id: teamId, name: input.name, created_by: ctx.actor.userId ?? ctx.actor.keyId, created_at: now, updated_at: now };
  await ctx.engine.stores.teams.insert(team);
  await recordAudit(ctx, { orgId, action: 'team.create', targetType: 'team', targetId: teamId, before: null, after: presentTeam(team) });
  return presentTeam(team);
}

export async function listTeams(ctx: IdentityCtx, orgId: string) {
  return (await ctx.engine.stores.teams.list(orgId)).map(presentTeam);
}

/** One team; 404 missing (or another org's). */
export async function getTeam(ctx: IdentityCtx, orgId: string, teamId: string) {
  return presentTeam(await requireTeam(ctx, orgId, teamId));
}

/** PATCH: renames (team_id is immutable). Audited team.update. */
export async function updateTeam(ctx: IdentityCtx, orgId: string, teamId: string, input: { name?: string }) {
  const before = await requireTeam(ctx, orgId, teamId);
  const after = await ctx.engine.stores.teams.update(orgId, teamId, { ...(input.name !== undefined ? { name: input.name } : {}), updated_at: isoNow(ctx) });
  if (!after) throw new NotFoundError('Team not found');
  await recordAudit(ctx, { orgId, action: 'team.update', targetType: 'team', targetId: teamId, before: presentTeam(before), after: presentTeam(after) });
  return presentTeam(after);
}

/** DELETE: cascades team memberships; org memberships untouched. Audited team.delete. */
export async function deleteTeam(ctx: IdentityCtx, orgId: string, teamId: string): Promise<void> {
  const before = await requireTeam(ctx, orgId, teamId);
  await ctx.engine.stores.teams.remove(orgId, teamId);
  await recordAudit(ctx, { orgId, action: 'team.delete', targetType: 'team', targetId: teamId, before: presentTeam(before), after: null });
}

/** GET team members `{user_id, email, added_at}`; 404 team missing. */
export async function listTeamMembers(ctx: IdentityCtx, orgId: string, teamId: string) {
  await requireTeam(ctx, orgId, teamId);
  const rows = await ctx.engine.stores.teams.listMembers(orgId, teamId);
  const users = new Map((await ctx.engine.stores.users.many(rows.map((r) => r.user_id))).map((u) => [u.user_id, u.email]));
  return rows.map((r) => ({ user_id: r.user_id, email: users.get(r.user_id) ?? '', added_at: r.added_at }));
}

/** POST team member: 404 team missing or user not in org; 409 already on team. Audited team.member_add. */
export async function addTeamMember(ctx: IdentityCtx, orgId: string, teamId: string, userId: string) {
  await requireTeam(ctx, orgId, teamId);
  if (!(await ctx.engine.stores.memberships.get(orgId, userId))) throw new NotFoundError('User is not a member of the organization');
  const user = await ctx.engine.stores.users.get(userId);
  const row = { org_id: orgId, team_id: teamId, user_id: userId, added_at: isoNow(ctx) };
  try {
    await ctx.engine.stores.teams.addMember(row);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError('Already on the team');
    throw error;
  }
  const presented = { team_id: teamId, user_id: userId, email: user?.email ?? '', added_at: row.added_at };
  await recordAudit(ctx, { orgId, action: 'team.member_add', targetType: 'team_member', targetId: `${teamId}:${userId}`, before: null, after: presented });
  return presented;
}

/** DELETE team member: 404 if not on the team. Audited team.member_remove. */
export async function removeTeamMember(ctx: IdentityCtx, orgId: string, teamId: string, userId: string): Promise<void> {
  await requireTeam(ctx, orgId, teamId);
  if (!(await ctx.engine.stores.teams.removeMember(orgId, teamId, userId))) throw new NotFoundError('Not on the team');
  await recordAudit(ctx, {
    orgId,
    action: 'team.member_remove',
    targetType: 'team_member',
    targetId: `${teamId}:${userId}`,
    before: { team_id: teamId, user_id: userId },
    after: null,
  });
}
