import type { Request } from 'express';
import { createScimConfig, deleteScimConfig, getScimConfig, rotateScimToken, updateScimConfig } from '@planwarden/engine/identity/scim-config-service';
import { identityCtx } from '../auth/identity';
import { publicBase } from '../auth/oidc-flow';
import type { Config } from '../config/config';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ownOrg } from './org-path';
import { ScimConfigPatchSchema, ScimConfigSchema } from './scim.schema';
import { NO_QUERY, parseBody } from './shared';

/** The tenant URL of an org's SCIM surface: `{public base}/api/v1/scim/v2/{org_id}`. */
export function scimBaseUrl(config: Config, req: Request, orgId: string): string {
  return `${publicBase(config, req)}/api/v1/scim/v2/${encodeURIComponent(orgId)}`;
}

/** identity-api.md "SCIM" management (admin): configuration, token rotation, removal. */
export function scimConfigRoutes(services: ServerServices): RouteDef[] {
  const base = (req: Request, orgId: string) => scimBaseUrl(services.config, req, orgId);
  return [
    route({
      method: 'post',
      path: '/orgs/:org_id/scim',
      policy: 'admin',
      body: 'json',
      requestBody: ScimConfigSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await createScimConfig(identityCtx(ctx), ownOrg(ctx, req), parseBody(ScimConfigSchema, req)) }),
    }),
    route({
      method: 'get',
      path: '/orgs/:org_id/scim',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getScimConfig(identityCtx(ctx), ownOrg(ctx, req), base(req, ctx.orgId)) }),
    }),
    route({
      method: 'patch',
      path: '/orgs/:org_id/scim',
      policy: 'admin',
      body: 'json',
      requestBody: ScimConfigPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await updateScimConfig(identityCtx(ctx), ownOrg(ctx, req), parseBody(ScimConfigPatchSchema, req), base(req, ctx.orgId)),
      }),
    }),
    route({
      method: 'delete',
      path: '/orgs/:org_id/scim',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await deleteScimConfig(identityCtx(ctx), ownOrg(ctx, req));
        return { body: { detail: 'SCIM configuration removed; its token no longer works' } };
      },
    }),
    route({
      method: 'post',
      path: '/orgs/:org_id/scim/rotate-token',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await rotateScimToken(identityCtx(ctx), ownOrg(ctx, req)) }),
    }),
  ];
}
