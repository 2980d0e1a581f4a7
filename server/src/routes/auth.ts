import { ForbiddenError } from '@planwarden/engine/core/errors';
import { acceptInviteToken, acceptPendingInvitation, pendingInvitations } from '@planwarden/engine/identity/invite-service';
import { register } from '@planwarden/engine/identity/registration';
import { presentUser } from '@planwarden/engine/identity/user-service';
import {
  changePassword,
  confirmTwoFactor,
  currentUser,
  disableTwoFactor,
  enrollTwoFactor,
  mintSessionFor,
  myOrganizations,
  orgFlags,
  switchOrganization,
  updateProfile,
} from '../auth/account-service';
import { presentedSession } from '../auth/authenticate';
import { identityCtx } from '../auth/identity';
import { logout, passwordLogin, secondFactorLogin } from '../auth/login';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import {
  CodeSchema,
  CurrentPasswordSchema,
  LoginSchema,
  PasswordChangeSchema,
  ProfileSchema,
  RegisterSchema,
  SecondFactorSchema,
  SwitchSchema,
} from './identity.schema';
import { logoutReply, sessionReply } from './session-reply';
import { NO_QUERY, param, parseBody } from './shared';

/**
 * identity-api.md "Registration, login, sessions". Logout is POST /auth/logout and revokes the
 * calling session server-side as well as clearing its cookie (docs/decisions.md).
 */
export function authRoutes(services: ServerServices): RouteDef[] {
  const ids = services.identity;
  const registration = () => ({
    allowPublicOrgCreation: ids.config.registration.allow_public_org_creation,
    termsVersion: ids.config.registration.terms_url ? ids.config.registration.terms_version : null,
  });
  return [
    route({
      method: 'get',
      path: '/auth/registration-options',
      policy: 'public',
      body: 'none',
      query: NO_QUERY,
      handler: async () => {
        const { allowPublicOrgCreation, termsVersion } = registration();
        const terms = termsVersion ? { terms: { version: termsVersion, url: ids.config.registration.terms_url } } : {};
        return { body: { allow_public_org_creation: allowPublicOrgCreation, ...terms } };
      },
    }),
    route({
      method: 'post',
      path: '/auth/register',
      policy: 'public',
      body: 'json',
      requestBody: RegisterSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const input = parseBody(RegisterSchema, req);
        const ictx = identityCtx(ctx);
        const result = await register(ictx, input, registration());
        const session = await mintSessionFor(ids, ictx, result.user, result.org_id);
        return sessionReply(ids, session, 201, { user_id: result.user.user_id, org_id: result.org_id, role: result.role });
      },
    }),
    route({
      method: 'post',
      path: '/auth/session',
      policy: 'public',
      body: 'json',
      requestBody: LoginSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const result = await passwordLogin(ids, identityCtx(ctx), parseBody(LoginSchema, req));
        return 'mfa' in result ? { body: result.mfa } : sessionReply(ids, result);
      },
    }),
    route({
      method: 'post',
      path: '/auth/session/2fa',
      policy: 'public',
      body: 'json',
      requestBody: SecondFactorSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => sessionReply(ids, await secondFactorLogin(ids, identityCtx(ctx), parseBody(SecondFactorSchema, req))),
    }),
    route({
      method: 'post',
      path: '/auth/session/switch',
      policy: 'human',
      body: 'json',
      requestBody: SwitchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => sessionReply(ids, await switchOrganization(ids, identityCtx(ctx), parseBody(SwitchSchema, req).org_id)),
    }),
    route({
      method: 'post',
      path: '/auth/logout',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        await logout(ids, identityCtx(ctx), presentedSession(req));
        return logoutReply(ids);
      },
    }),
    route({
      method: 'get',
      path: '/auth/me',
      policy: 'authenticated',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => {
        const p = ctx.principal;
        const ictx = identityCtx(ctx);
        const account = p.kind === 'session' ? await currentUser(ictx) : null;
        const user = account ? { ...presentUser(account), has_password: account.password_hash !== null } : null;
        const satisfied = (p.twoFactorEnabled ?? false) || (p.ssoOrgId != null && p.ssoOrgId === p.orgId);
        const flags = await orgFlags(ictx, p.orgId, p.kind === 'session', satisfied);
        return { body: { user, org_id: p.orgId, role: p.role, is_superadmin: p.isSuperadmin, ...flags } };
      },
    }),
    route({
      method: 'patch',
      path: '/auth/me',
      policy: 'human',
      body: 'json',
      requestBody: ProfileSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await updateProfile(identityCtx(ctx), parseBody(ProfileSchema, req)) }),
    }),
    route({
      method: 'post',
      path: '/auth/me/password',
      policy: 'human',
      body: 'json',
      requestBody: PasswordChangeSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const result = await changePassword(ids, identityCtx(ctx), ctx.principal.orgId, parseBody(PasswordChangeSchema, req));
        return sessionReply(ids, result);
      },
    }),
    route({
      method: 'post',
      path: '/auth/me/2fa/enroll',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await enrollTwoFactor(identityCtx(ctx)) }),
    }),
    route({
      method: 'post',
      path: '/auth/me/2fa/confirm',
      policy: 'human',
      body: 'json',
      requestBody: CodeSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await confirmTwoFactor(identityCtx(ctx), parseBody(CodeSchema, req)) }),
    }),
    route({
      method: 'post',
      path: '/auth/me/2fa/disable',
      policy: 'human',
      body: 'json',
      requestBody: CurrentPasswordSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await disableTwoFactor(identityCtx(ctx), parseBody(CurrentPasswordSchema, req)) }),
    }),
    route({
      method: 'get',
      path: '/auth/me/organizations',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await myOrganizations(identityCtx(ctx)) }),
    }),
    route({
      method: 'get',
      path: '/auth/me/invitations',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => {
        const ictx = identityCtx(ctx);
        return { body: await pendingInvitations(ictx, await currentUser(ictx)) };
      },
    }),
    route({
      method: 'post',
      path: '/auth/me/invitations/:invite_id/accept',
      policy: 'human',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const ictx = identityCtx(ctx);
        const user = await currentUser(ictx);
        const joined = await acceptPendingInvitation(ictx, user, param(req, 'invite_id'));
        return sessionReply(ids, await mintSessionFor(ids, ictx, user, joined.org_id), 200, joined);
      },
    }),
    route({
      method: 'post',
      path: '/invite/:token/accept',
      policy: 'human',
      nonHumanStatus: 401,
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const ictx = identityCtx(ctx);
        const user = await currentUser(ictx);
        const joined = await acceptInviteToken(ictx, param(req, 'token'), user);
        return sessionReply(ids, await mintSessionFor(ids, ictx, user, joined.org_id), 200, joined);
      },
    }),
  ];
}

/** Superadmin or public-creation check for POST /orgs (identity-api.md "Credential shapes"). */
export function assertMayCreateOrg(services: ServerServices, isSuperadmin: boolean): void {
  if (!isSuperadmin && !services.identity.config.registration.allow_public_org_creation) {
    throw new ForbiddenError('Public organization creation is disabled');
  }
}
