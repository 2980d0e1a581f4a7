import type { Request } from 'express';
import { z } from 'zod';
import { ValidationError } from '@planwarden/engine/core/errors';
import { listIdentities, unlinkIdentity } from '@planwarden/engine/identity/social-service';
import { currentUser } from '../auth/account-service';
import { identityCtx } from '../auth/identity';
import { finishSocial, offeredProviders, SOCIAL_PROVIDERS, startSocial, type SocialProvider } from '../auth/oidc-social';
import { route, type Reply, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { sessionReply } from './session-reply';
import { NO_QUERY, param } from './shared';

/** `{provider}`: one of the two providers, else 422 (identity-api.md "Social sign-in"). */
function providerOf(req: Request): SocialProvider {
  const value = param(req, 'provider');
  if (!(SOCIAL_PROVIDERS as readonly string[]).includes(value)) throw new ValidationError(`provider: must be one of ${SOCIAL_PROVIDERS.join(', ')}`);
  return value as SocialProvider;
}

const StartQuery = z.object({ invite: z.string().min(1).max(512).optional(), accepted_terms_version: z.string().min(1).max(32).optional() });
/** The provider chooses the callback's parameters (code, state, iss, error, session_state...). */
const CallbackQuery = z.looseObject({ state: z.string().max(4096).optional() });

function redirect(location: string, cookie: string | null): Reply {
  return { status: 307, headers: { Location: location, ...(cookie ? { 'Set-Cookie': cookie } : {}), 'Cache-Control': 'no-store' } };
}

/** identity-api.md "Social sign-in": providers, start/callback, linked identities, the superadmin test. */
export function socialRoutes(services: ServerServices): RouteDef[] {
  const ids = services.identity;
  return [
    route({
      method: 'get',
      path: '/auth/providers',
      policy: 'public',
      body: 'none',
      query: NO_QUERY,
      handler: async () => ({ body: offeredProviders(ids.config) }),
    }),
    route({
      method: 'get',
      path: '/auth/oauth/:provider/start',
      policy: 'public',
      body: 'none',
      query: StartQuery,
      handler: async (ctx, req) => {
        const q = StartQuery.parse(req.query);
        const { location, cookie } = await startSocial(ids, ctx.engine, req, providerOf(req), 'signin', {
          invite: q.invite ?? null,
          terms: q.accepted_terms_version ?? null,
        });
        return redirect(location, cookie);
      },
    }),
    route({
      method: 'get',
      path: '/auth/oauth/:provider/callback',
      policy: 'public',
      body: 'none',
      query: CallbackQuery,
      handler: async (ctx, req) => {
        const landing = await finishSocial(ids, ctx.engine, identityCtx(ctx), req, providerOf(req));
        if (!landing.session) return { status: 307, headers: { Location: landing.location, 'Cache-Control': 'no-store' } };
        const reply = sessionReply(ids, landing.session, 307, undefined);
        return { ...reply, body: undefined, headers: { ...reply.headers, Location: landing.location, 'Cache-Control': 'no-store' } };
      },
    }),
    route({
      method: 'get',
      path: '/auth/me/identities',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await listIdentities(identityCtx(ctx), (await currentUser(identityCtx(ctx))).user_id) }),
    }),
    route({
      method: 'get',
      path: '/auth/me/identities/:provider/link',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const provider = providerOf(req);
        const user = await currentUser(identityCtx(ctx));
        const { location, cookie } = await startSocial(ids, ctx.engine, req, provider, 'link', { user: user.user_id });
        return redirect(location, cookie);
      },
    }),
    route({
      method: 'delete',
      path: '/auth/me/identities/:provider',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const provider = providerOf(req);
        const ictx = identityCtx(ctx);
        return { body: await unlinkIdentity(ictx, await currentUser(ictx), provider) };
      },
    }),
    route({
      method: 'get',
      path: '/admin/social-login/:provider/test',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const { location, cookie } = await startSocial(ids, ctx.engine, req, providerOf(req), 'test', { user: ctx.principal.userId });
        return redirect(location, cookie);
      },
    }),
  ];
}
