import { z } from 'zod';
import { NotFoundError } from '@planwarden/engine/core/errors';
import { LLM_BACKENDS, type LlmBackend } from '@planwarden/engine/llm/types';
import { route, type RouteDef } from '../http/route';
import { presentModel } from './models';
import { booleanQuery, NO_QUERY, param, parseBody, parseQuery } from './shared';

const price = z.number().finite().min(0).max(1_000_000);
const ModelCreateSchema = z
  .object({
    llm_backend: z.enum(LLM_BACKENDS as [LlmBackend, ...LlmBackend[]]),
    model: z.string().min(1).max(200),
    input_price_per_1m_usd: price,
    output_price_per_1m_usd: price,
    enabled: z.boolean().default(true),
  })
  .strict();
const ModelPatchSchema = z.object({ input_price_per_1m_usd: price, output_price_per_1m_usd: price, enabled: z.boolean() }).partial().strict();
const EnabledQuery = z.object({ enabled: booleanQuery.optional() });

const notFound = (req: Parameters<RouteDef['handler']>[1]) =>
  new NotFoundError(`Model '${param(req, 'model')}' of backend '${param(req, 'llm_backend')}' is not on the catalogue`);

/**
 * analysis-api.md "LLM credentials, quota, models": the /admin/models rows (superadmin). The
 * analyze-time check (requireCatalogueModel) reads the catalogue at every call, so a disabled
 * or removed model answers 400 on the next analysis.
 */
export function adminModelRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/admin/models',
      policy: 'superadmin',
      body: 'none',
      query: EnabledQuery,
      handler: async (ctx, req) => ({ body: { models: (await ctx.engine.stores.models.list(parseQuery(EnabledQuery, req).enabled)).map(presentModel) } }),
    }),
    route({
      method: 'post',
      path: '/admin/models',
      policy: 'superadmin',
      body: 'json',
      requestBody: ModelCreateSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const body = parseBody(ModelCreateSchema, req);
        const createdBy = ctx.principal.email ?? ctx.principal.userId ?? ctx.principal.keyId ?? null;
        const row = await ctx.engine.stores.models.create({ ...body, created_by: createdBy, created_at: ctx.now().toISOString() });
        return { status: 201, body: presentModel(row) };
      },
    }),
    route({
      method: 'patch',
      path: '/admin/models/:llm_backend/:model',
      policy: 'superadmin',
      body: 'json',
      requestBody: ModelPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const row = await ctx.engine.stores.models.update(
          param(req, 'llm_backend'),
          param(req, 'model'),
          parseBody(ModelPatchSchema, req),
          ctx.now().toISOString(),
        );
        if (!row) throw notFound(req);
        return { body: presentModel(row) };
      },
    }),
    route({
      method: 'delete',
      path: '/admin/models/:llm_backend/:model',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        if (!(await ctx.engine.stores.models.remove(param(req, 'llm_backend'), param(req, 'model'), ctx.now().toISOString()))) throw notFound(req);
        return { status: 204 };
      },
    }),
  ];
}
