import type { Request } from 'express';
import { ValidationError } from '@planwarden/engine/core/errors';
import { createSsoConnection, deleteSsoConnection, discoverSso, getSsoConnection, updateSsoConnection } from '@planwarden/engine/identity/sso-service';
import { approveDomain, verifyDomainByDns } from '@planwarden/engine/identity/sso-domains';
import { identityCtx } from '../auth/identity';
import { finishSso, startSso, verificationLookup } from '../auth/oidc-sso';
import { dashboardUrl } from '../auth/oidc-flow';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ownOrg } from './org-path';
import { sessionReply } from './session-reply';
import { NO_QUERY, param, parseBody } from './shared';
import { SsoCallbackQuery, SsoConnectionPatchSchema, SsoConnectionSchema, SsoDiscoverSchema, SsoDomainParam } from './sso.schema';

/** The path's `{domain}`, lower-cased; 422 when it is not an e-mail domain. */
function domainParam(req: Request): string {
  const result = SsoDomainParam.safeParse(param(req, 'domain'));
  if (!result.success) throw new ValidationError('domain: an e-mail domain such as example.com');
  return result.data;
}

/**
 * identity-api.md "Single sign-on": the org's connection (admin), the verification of its
 * domains (admin by DNS TXT, or a superadmin's approval; docs/decisions.md "SSO domain
 * verification") and the public discover/start/callback flow. The callback lands on the
 * dashboard's `/overview` with the session cookie (docs/decisions.md "SSO").
 */
export function ssoRoutes(services: ServerServices): RouteDef[] {
  const ids = services.identity;
  return [
    route({
      method: 'post',
      path: '/orgs/:org_id/sso',
      policy: 'admin',
      body: 'json',
      requestBody: SsoConnectionSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ status: 201, body: await createSsoConnection(identityCtx(ctx), ownOrg(ctx, req), parseBody(SsoConnectionSchema, req)) }),
    }),
    route({
      method: 'get',
      path: '/orgs/:org_id/sso',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getSsoConnection(identityCtx(ctx), ownOrg(ctx, req)) }),
    }),
    route({
      method: 'patch',
      path: '/orgs/:org_id/sso',
      policy: 'admin',
      body: 'json',
      requestBody: SsoConnectionPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await updateSsoConnection(identityCtx(ctx), ownOrg(ctx, req), parseBody(SsoConnectionPatchSchema, req)) }),
    }),
    route({
      method: 'delete',
      path: '/orgs/:org_id/sso',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await deleteSsoConnection(identityCtx(ctx), ownOrg(ctx, req));
        return { body: { detail: 'SSO connection removed' } };
      },
    }),
    route({
      method: 'post',
      path: '/orgs/:org_id/sso/domains/:domain/verify',
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await verifyDomainByDns(identityCtx(ctx), ownOrg(ctx, req), domainParam(req), verificationLookup(ids.config)) }),
    }),
    route({
      method: 'post',
      path: '/admin/organizations/:org_id/sso/domains/:domain/verify',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await approveDomain(identityCtx(ctx), param(req, 'org_id'), domainParam(req)) }),
    }),
    route({
      method: 'post',
      path: '/auth/sso/discover',
      policy: 'public',
      body: 'json',
      requestBody: SsoDiscoverSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await discoverSso(identityCtx(ctx), parseBody(SsoDiscoverSchema, req).email) }),
    }),
    route({
      method: 'get',
      path: '/auth/sso/:org_id/start',
      policy: 'public',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const { location, cookie } = await startSso(ids, ctx.engine, identityCtx(ctx), req, param(req, 'org_id'));
        return { status: 307, headers: { Location: location, 'Set-Cookie': cookie, 'Cache-Control': 'no-store' } };
      },
    }),
    route({
      method: 'get',
      path: '/auth/sso/callback',
      policy: 'public',
      body: 'none',
      query: SsoCallbackQuery,
      handler: async (ctx, req) => {
        const session = await finishSso(ids, ctx.engine, identityCtx(ctx), req);
        const reply = sessionReply(ids, session, 307, undefined);
        return { ...reply, body: undefined, headers: { ...reply.headers, Location: dashboardUrl(ids.config, '/overview'), 'Cache-Control': 'no-store' } };
      },
    }),
  ];
}
