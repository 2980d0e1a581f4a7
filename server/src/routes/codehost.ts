import { z } from 'zod';
import { adminBindInstallation, BindInstallationSchema, completeInstall, installLink } from '@planwarden/engine/codehost/installation-binding';
import { CodehostConfigSchema, deleteIntegration, deleteOwnApp, getIntegration, putIntegration } from '@planwarden/engine/codehost/integration-service';
import { completeManifest, createManifest, integrationPageUrl } from '@planwarden/engine/codehost/manifest';
import { AppError } from '@planwarden/engine/core/errors';
import { handleWebhook } from '@planwarden/engine/codehost/webhook';
import { identityCtx } from '../auth/identity';
import { codehostDeps } from '../codehost/deps';
import { mintInstallState, redeemInstallState } from '../codehost/install-state';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ownOrg } from './org-path';
import { NO_QUERY, param, parseBody, parseQuery } from './shared';

const CONFIG_PATH = '/orgs/:org_id/integrations/codehost';
/** GitHub caps webhook payloads at 25 MB. */
const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;
const CallbackQuerySchema = z.object({
  code: z.string().max(200).optional(),
  state: z.string().max(200).optional(),
  setup_action: z.string().max(50).optional(),
});
/** The App's setup redirect (GitHub "About the setup URL"); values are checked by the services (400). */
const SetupQuerySchema = z.object({
  installation_id: z.string().max(40).optional(),
  setup_action: z.string().max(50).optional(),
  state: z.string().max(2000).optional(),
});

/**
 * analysis-api.md "Code-hosting integration": the org's config (admin), the manifest flow, and
 * the two public endpoints, authenticated by signature (the webhook) or single-use state (the
 * manifest callback). Statuses of the webhook: 202 a pull request analysis queued, 200 other
 * events, 401 missing or bad X-Hub-Signature-256, 501 no app configured. Installation binding
 * (docs/decisions.md "Installation binding"): the install link and the App's setup URL (the
 * admin's browser, carrying its session, returns from GitHub there), and the superadmin bind.
 */
export function codehostRoutes(services: ServerServices): RouteDef[] {
  const deps = codehostDeps(services);
  return [
    route({
      method: 'post',
      path: CONFIG_PATH,
      policy: 'admin',
      body: 'json',
      query: NO_QUERY,
      requestBody: CodehostConfigSchema,
      handler: async (ctx, req) => ({ status: 201, body: await putIntegration(identityCtx(ctx), ownOrg(ctx, req), parseBody(CodehostConfigSchema, req)) }),
    }),
    route({
      method: 'post',
      path: `${CONFIG_PATH}/install-link`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const orgId = ownOrg(ctx, req);
        const { state, expiresAt } = await mintInstallState(services.identity.signer, orgId, identityCtx(ctx).actor, ctx.now());
        return { body: { install_url: await installLink(deps, orgId, state), expires_at: expiresAt } };
      },
    }),
    route({
      method: 'get',
      path: '/integrations/codehost/setup',
      policy: 'admin',
      body: 'none',
      query: SetupQuerySchema,
      handler: async (ctx, req) => {
        try {
          const query = parseQuery(SetupQuerySchema, req);
          const ictx = identityCtx(ctx);
          const issuedAt = await redeemInstallState(services.identity.signer, query.state, ctx.orgId, ictx.actor);
          return { status: 307, headers: { location: await completeInstall(deps, ictx, ctx.orgId, query.installation_id, issuedAt) } };
        } catch (error) {
          // GitHub sends the person's browser here: a refusal goes back to the integration page,
          // which says what failed; an API client (no HTML in Accept) gets the status and {detail}.
          if (!(error instanceof AppError) || req.accepts(['json', 'html']) !== 'html') throw error;
          return { status: 303, headers: { location: integrationPageUrl(deps.settings(), `setup_error=${encodeURIComponent(error.message)}`) } };
        }
      },
    }),
    route({
      method: 'post',
      path: '/admin/organizations/:org_id/integrations/codehost/installation',
      policy: 'superadmin',
      body: 'json',
      query: NO_QUERY,
      requestBody: BindInstallationSchema,
      handler: async (ctx, req) => ({
        body: await adminBindInstallation(identityCtx(ctx), param(req, 'org_id'), parseBody(BindInstallationSchema, req).installation_id),
      }),
    }),
    route({
      method: 'get',
      path: CONFIG_PATH,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getIntegration(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'delete',
      path: CONFIG_PATH,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteIntegration(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'post',
      path: `${CONFIG_PATH}/manifest`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await createManifest(deps, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'delete',
      path: `${CONFIG_PATH}/app`,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteOwnApp(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'get',
      path: '/integrations/codehost/manifest/callback',
      policy: 'public',
      body: 'none',
      query: CallbackQuerySchema,
      handler: async (_ctx, req) => {
        const { code, state } = parseQuery(CallbackQuerySchema, req);
        return { status: 307, headers: { location: await completeManifest(deps, code, state) } };
      },
    }),
    route({
      method: 'post',
      path: '/integrations/codehost/webhook',
      policy: 'public',
      body: 'text',
      query: NO_QUERY,
      maxBodyBytes: MAX_WEBHOOK_BYTES,
      handler: async (_ctx, req) =>
        handleWebhook(deps, {
          event: req.get('x-github-event'),
          deliveryId: req.get('x-github-delivery'),
          signature: req.get('x-hub-signature-256'),
          raw: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        }),
    }),
  ];
}
