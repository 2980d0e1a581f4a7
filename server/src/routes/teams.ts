import {
  addTeamMember,
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  updateTeam,
} from '@planwarden/engine/identity/team-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import { TeamMemberSchema, TeamPatchSchema, TeamSchema } from './identity.schema';
import { NO_QUERY, param, parseBody } from './shared';

const BASE = '/orgs/:org_id/teams';

/** identity-api.md "Teams": admin to change, any member reads. */
export function teamRoutes(): RouteDef[] {
  return [
    route({
      method: 'post',
      path: BASE,
      policy: 'admin',
      body: 'json',
      requestBody: TeamSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await createTeam(identityCtx(ctx), ctx.orgId, parseBody(TeamSchema, req)) }),
    }),
    route({
      method: 'get',
      path: BASE,
      policy: 'viewer',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: { teams: await listTeams(identityCtx(ctx), ctx.orgId) } }),
    }),
    route({
      method: 'get',
      path: `${BASE}/:team_id`,
      policy: 'viewer',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getTeam(identityCtx(ctx), ctx.orgId, param(req, 'team_id')) }),
    }),
    route({
      method: 'patch',
      path: `${BASE}/:team_id`,
      policy: 'admin',
      body: 'json',
      requestBody: TeamPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await updateTeam(identityCtx(ctx), ctx.orgId, param(req, 'team_id'), parseBody(TeamPatchSchema, req)) }),
    }),
    route({
      method: 'delete',
      path: `${BASE}/:team_id`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await deleteTeam(identityCtx(ctx), ctx.orgId, param(req, 'team_id'));
        return { status: 204 };
      },
    }),
    route({
      method: 'get',
      path: `${BASE}/:team_id/members`,
      policy: 'viewer',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: { members: await listTeamMembers(identityCtx(ctx), ctx.orgId, param(req, 'team_id')) } }),
    }),
    route({
      method: 'post',
      path: `${BASE}/:team_id/members`,
      policy: 'admin',
      body: 'json',
      requestBody: TeamMemberSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        status: 201,
        body: await addTeamMember(identityCtx(ctx), ctx.orgId, param(req, 'team_id'), parseBody(TeamMemberSchema, req).user_id),
      }),
    }),
    route({
      method: 'delete',
      path: `${BASE}/:team_id/members/:user_id`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await removeTeamMember(identityCtx(ctx), ctx.orgId, param(req, 'team_id'), param(req, 'user_id'));
        return { status: 204 };
      },
    }),
  ];
}
