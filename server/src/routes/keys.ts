import { createApiKey, listApiKeys, revokeApiKey } from '@planwarden/engine/identity/key-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import { CreateKeySchema } from './identity.schema';
import { param, parseBody } from './shared';

/** identity-api.md "Service accounts": /auth/keys (admin of the caller's org). */
export function keyRoutes(): RouteDef[] {
  return [
    route({
      method: 'post', path: '/auth/keys', policy: 'admin', body: 'json',
      handler: async (ctx, req) => ({ status: 201, body: await createApiKey(identityCtx(ctx), ctx.orgId, parseBody(CreateKeySchema, req)) }),
    }),
    route({
      method: 'get', path: '/auth/keys', policy: 'admin', body: 'none',
      handler: async (ctx) => ({ body: { keys: await listApiKeys(identityCtx(ctx), ctx.orgId) } }),
    }),
    route({
      method: 'delete', path: '/auth/keys/:key_id', policy: 'admin', body: 'none',
      handler: async (ctx, req) => ({ body: await revokeApiKey(identityCtx(ctx), ctx.orgId, param(req, 'key_id')) }),
    }),
  ];
}
