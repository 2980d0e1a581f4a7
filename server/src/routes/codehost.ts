import { z } from 'zod';
import { CodehostConfigSchema, deleteIntegration, deleteOwnApp, getIntegration, putIntegration } from '@planwarden/engine/codehost/integration-service';
import { completeManifest, createManifest } from '@planwarden/engine/codehost/manifest';
import { handleWebhook } from '@planwarden/engine/codehost/webhook';
import { codehostDeps } from '../codehost/deps';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ownOrg } from './org-path';
import { NO_QUERY, parseBody, parseQuery } from './shared';

const CONFIG_PATH = '/orgs/:org_id/integrations/codehost';
/** GitHub caps webhook payloads at 25 MB. */
const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;
const CallbackQuerySchema = z.object({ code: z.string().max(200).optional(), state: z.string().max(200).optional(), setup_action: z.string().max(50).optional() });

/**
 * analysis-api.md "Code-hosting integration": the org's config (admin), the manifest flow, and
 * the two public endpoints, authenticated by signature (the webhook) or single-use state (the
 * manifest callback). Statuses of the webhook: 202 a pull request analysis queued, 200 other
 * events, 401 missing or bad X-Hub-Signature-256, 501 no app configured.
 */
export function codehostRoutes(services: ServerServices): RouteDef[] {
  const deps = codehostDeps(services);
  return [
    route({
      method: 'post', path: CONFIG_PATH, policy: 'admin', body: 'json', query: NO_QUERY, requestBody: CodehostConfigSchema,
      handler: async (ctx, req) => ({ status: 201, body: await putIntegration(ctx.engine, ownOrg(ctx, req), parseBody(CodehostConfigSchema, req)) }),
    }),
    route({
      method: 'get', path: CONFIG_PATH, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getIntegration(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'delete', path: CONFIG_PATH, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteIntegration(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'post', path: `${CONFIG_PATH}/manifest`, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await createManifest(deps, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'delete', path: `${CONFIG_PATH}/app`, policy: 'admin', body: 'none', query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteOwnApp(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'get', path: '/integrations/codehost/manifest/callback', policy: 'public', body: 'none', query: CallbackQuerySchema,
      handler: async (_ctx, req) => {
        const { code, state } = parseQuery(CallbackQuerySchema, req);
        return { status: 307, headers: { location: await completeManifest(deps, code, state) } };
      },
    }),
    route({
      method: 'post', path: '/integrations/codehost/webhook', policy: 'public', body: 'text', query: NO_QUERY, maxBodyBytes: MAX_WEBHOOK_BYTES,
      handler: async (_ctx, req) => handleWebhook(deps, {
        event: req.get('x-github-event'), deliveryId: req.get('x-github-delivery'), signature: req.get('x-hub-signature-256'),
        raw: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      }),
    }),
  ];
}
