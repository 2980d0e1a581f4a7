import { createApiKey, listApiKeys, revokeApiKey } from '@planwarden/engine/identity/key-service';
import { identityCtx } from '../auth/identity';
import { effectiveRole } from '../auth/policy';
import { route, type RouteDef } from '../http/route';
import { CreateKeySchema } from './identity.schema';
import { NO_QUERY, param, parseBody } from './shared';

/**
 * identity-api.md "Service accounts": /auth/keys (admin of the caller's org); a new key's role
 * is bounded by the caller's effective role (docs/decisions.md).
 */
export function keyRoutes(): RouteDef[] {
  return [
    route({
      method: 'post',
      path: '/auth/keys',
      policy: 'admin',
      body: 'json',
      requestBody: CreateKeySchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const input = parseBody(CreateKeySchema, req);
        return { status: 201, body: await createApiKey(identityCtx(ctx), ctx.orgId, input, effectiveRole(ctx.principal)) };
      },
    }),
    route({
      method: 'get',
      path: '/auth/keys',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: { keys: await listApiKeys(identityCtx(ctx), ctx.orgId) } }),
    }),
    route({
      method: 'delete',
      path: '/auth/keys/:key_id',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await revokeApiKey(identityCtx(ctx), ctx.orgId, param(req, 'key_id')) }),
    }),
  ];
}
