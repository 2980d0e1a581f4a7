import { z } from 'zod';
import { NotFoundError } from '@planwarden/engine/core/errors';
import { LLM_BACKENDS, type LlmBackend } from '@planwarden/engine/llm/types';
import type { AllowedModelDoc } from '@planwarden/engine/llm/model-store';
import { route, type RouteDef } from '../http/route';
import { NO_QUERY, param, parseBody, requireOwnOrg } from './shared';

const CredentialSchema = z.object({
  provider: z.enum(LLM_BACKENDS as [LlmBackend, ...LlmBackend[]]),
  api_key: z.string().min(1).max(4096),
});

/** analysis-api.md "Allowed model" presenter. */
export function presentModel(m: AllowedModelDoc) {
  return {
    llm_backend: m.llm_backend,
    model: m.model,
    input_price_per_1m_usd: m.input_price_per_1m_usd,
    output_price_per_1m_usd: m.output_price_per_1m_usd,
    enabled: m.enabled,
    created_by: m.created_by,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

/** analysis-api.md "LLM credentials, quota, models": GET /models and the llm-credentials rows. */
export function modelRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/models',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: { models: (await ctx.engine.stores.models.list(true)).map(presentModel) } }),
    }),
    route({
      method: 'post',
      path: '/orgs/:org_id/llm-credentials',
      policy: 'admin',
      body: 'json',
      requestBody: CredentialSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        requireOwnOrg(ctx, param(req, 'org_id'));
        const { provider, api_key } = parseBody(CredentialSchema, req);
        return { status: 201, body: await ctx.engine.stores.credentials.put(ctx.orgId, provider, api_key, ctx.now().toISOString()) };
      },
    }),
    route({
      method: 'get',
      path: '/orgs/:org_id/llm-credentials',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        requireOwnOrg(ctx, param(req, 'org_id'));
        return { body: { credentials: await ctx.engine.stores.credentials.list(ctx.orgId) } };
      },
    }),
    route({
      method: 'delete',
      path: '/orgs/:org_id/llm-credentials/:provider',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        requireOwnOrg(ctx, param(req, 'org_id'));
        const provider = param(req, 'provider');
        if (!(await ctx.engine.stores.credentials.delete(ctx.orgId, provider))) throw new NotFoundError(`No credential stored for provider '${provider}'`);
        return { body: { detail: `Credential for '${provider}' deleted` } };
      },
    }),
  ];
}
