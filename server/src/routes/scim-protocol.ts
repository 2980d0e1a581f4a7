import type { Request } from 'express';
import { ZodError, type z } from 'zod';
import { AppError, LockedError, NotFoundError } from '@planwarden/engine/core/errors';
import type { IdentityCtx } from '@planwarden/engine/context/identity-context';
import { authenticateScimToken } from '@planwarden/engine/identity/scim-config-service';
import { createScimGroup, deleteScimGroup, getScimGroup, listScimGroups, patchScimGroup, replaceScimGroup } from '@planwarden/engine/identity/scim-groups';
import { ScimPatchSchema, scimError, type ScimListQuery } from '@planwarden/engine/identity/scim-resources';
import type { ScimConfigDoc } from '@planwarden/engine/identity/scim-store';
import { createScimUser, deleteScimUser, getScimUser, listScimUsers, patchScimUser, replaceScimUser } from '@planwarden/engine/identity/scim-users';
import { identityCtx } from '../auth/identity';
import type { RequestContext } from '../http/request-context';
import { route, type Reply, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';
import { ScimListQuerySchema } from './scim.schema';
import { scimBaseUrl } from './scim';
import { NO_QUERY, param } from './shared';

const SCIM_TYPE = 'application/scim+json';

/** What a SCIM handler receives: the identity context acting as the SCIM client, the org's config, the tenant URL. */
interface ScimCall {
  readonly ictx: IdentityCtx;
  readonly config: ScimConfigDoc;
  readonly base: string;
  readonly req: Request;
}

function scimReply(status: number, body: unknown): Reply {
  return { status, contentType: SCIM_TYPE, body: body === undefined ? '' : JSON.stringify(body) };
}

/** Any failure as a SCIM error body (RFC 7644 §3.12) in `application/scim+json`. */
function errorReply(error: unknown): Reply {
  if (error instanceof AppError) {
    const scimType = typeof error.extra.scimType === 'string' ? error.extra.scimType : undefined;
    return scimReply(error.status, scimError(error.status, error.message, scimType));
  }
  if (error instanceof ZodError)
    return scimReply(400, scimError(400, error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), 'invalidSyntax'));
  throw error;
}

function bearer(req: Request): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
  return m ? m[1] : null;
}

/**
 * A SCIM route: public to the API's own credentials (the SCIM token unlocks nothing else and no
 * other credential unlocks SCIM), authenticated here by the org's bearer token (401 missing,
 * invalid or disabled; 403 another org's token), 423 for a locked org; every answer and error
 * in `application/scim+json`.
 */
function scimRoute(
  services: ServerServices,
  def: {
    method: RouteDef['method'];
    path: string;
    body: 'none' | 'json';
    query?: z.ZodObject;
    run: (call: ScimCall) => Promise<{ status?: number; body?: unknown }>;
  },
): RouteDef {
  return route({
    method: def.method,
    path: `/scim/v2/:org_id${def.path}`,
    policy: 'public',
    body: def.body,
    query: def.query ?? NO_QUERY,
    handler: async (ctx: RequestContext, req: Request) => {
      try {
        const orgId = param(req, 'org_id');
        const scimCtx: RequestContext = { ...ctx, principal: { ...ctx.principal, keyId: 'scim' } };
        const ictx = identityCtx(scimCtx);
        const config = await authenticateScimToken(ictx, bearer(req), orgId);
        const org = await ctx.engine.stores.orgs.get(orgId);
        if (!org) throw new NotFoundError('Organization not found');
        if (org.locked) throw new LockedError('The organization is locked');
        const result = await def.run({ ictx, config, base: scimBaseUrl(services.config, req, orgId), req });
        return scimReply(result.status ?? 200, result.body);
      } catch (error) {
        return errorReply(error);
      }
    },
  });
}

function listQuery(req: Request): ScimListQuery {
  const q = ScimListQuerySchema.parse(req.query);
  const num = (v: string | undefined) => (v === undefined || !/^-?\d+$/.test(v) ? undefined : Number(v));
  return { filter: q.filter, startIndex: num(q.startIndex), count: num(q.count) };
}

/** identity-api.md "SCIM" protocol surface under /scim/v2/{org_id}/ (RFC 7644). */
export function scimProtocolRoutes(services: ServerServices): RouteDef[] {
  const r = (d: Parameters<typeof scimRoute>[1]) => scimRoute(services, d);
  const id = (req: Request) => param(req, 'id');
  const patchOps = (req: Request) => ScimPatchSchema.parse(req.body ?? {}).Operations;
  return [
    r({ method: 'get', path: '/ServiceProviderConfig', body: 'none', run: async ({ base }) => ({ body: serviceProviderConfig(base) }) }),
    r({ method: 'get', path: '/ResourceTypes', body: 'none', run: async ({ base }) => ({ body: resourceTypes(base) }) }),
    r({ method: 'get', path: '/Schemas', body: 'none', run: async ({ base }) => ({ body: schemas(base) }) }),
    r({
      method: 'get',
      path: '/Users',
      body: 'none',
      query: ScimListQuerySchema,
      run: async (c) => ({ body: await listScimUsers(c.ictx, c.config, listQuery(c.req), c.base) }),
    }),
    r({
      method: 'post',
      path: '/Users',
      body: 'json',
      run: async (c) => {
        const { created, resource } = await createScimUser(c.ictx, c.config, (c.req.body ?? {}) as object, c.base);
        return { status: created ? 201 : 200, body: resource };
      },
    }),
    r({ method: 'get', path: '/Users/:id', body: 'none', run: async (c) => ({ body: await getScimUser(c.ictx, c.config, id(c.req), c.base) }) }),
    r({
      method: 'patch',
      path: '/Users/:id',
      body: 'json',
      run: async (c) => ({ body: await patchScimUser(c.ictx, c.config, id(c.req), patchOps(c.req), c.base) }),
    }),
    r({
      method: 'put',
      path: '/Users/:id',
      body: 'json',
      run: async (c) => ({ body: await replaceScimUser(c.ictx, c.config, id(c.req), (c.req.body ?? {}) as object, c.base) }),
    }),
    r({
      method: 'delete',
      path: '/Users/:id',
      body: 'none',
      run: async (c) => {
        await deleteScimUser(c.ictx, c.config, id(c.req));
        return { status: 204 };
      },
    }),
    r({
      method: 'get',
      path: '/Groups',
      body: 'none',
      query: ScimListQuerySchema,
      run: async (c) => ({ body: await listScimGroups(c.ictx, c.config, listQuery(c.req), c.base) }),
    }),
    r({
      method: 'post',
      path: '/Groups',
      body: 'json',
      run: async (c) => ({ status: 201, body: await createScimGroup(c.ictx, c.config, (c.req.body ?? {}) as object, c.base) }),
    }),
    r({ method: 'get', path: '/Groups/:id', body: 'none', run: async (c) => ({ body: await getScimGroup(c.ictx, c.config, id(c.req), c.base) }) }),
    r({
      method: 'patch',
      path: '/Groups/:id',
      body: 'json',
      run: async (c) => ({ body: await patchScimGroup(c.ictx, c.config, id(c.req), patchOps(c.req), c.base) }),
    }),
    r({
      method: 'put',
      path: '/Groups/:id',
      body: 'json',
      run: async (c) => ({ body: await replaceScimGroup(c.ictx, c.config, id(c.req), (c.req.body ?? {}) as object, c.base) }),
    }),
    r({
      method: 'delete',
      path: '/Groups/:id',
      body: 'none',
      run: async (c) => {
        await deleteScimGroup(c.ictx, c.config, id(c.req));
        return { status: 204 };
      },
    }),
  ];
}
