import { z } from 'zod';

const NonOwnerRole = z.enum(['viewer', 'member', 'admin']);
const Domain = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^@?[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/, 'an e-mail domain such as example.com');

/** POST /orgs/{org_id}/sso (identity-api.md "SSO connection"); default_role owner is 422. */
export const SsoConnectionSchema = z
  .object({
    display_name: z.string().trim().min(1).max(200),
    issuer: z.string().trim().min(1).max(2048),
    client_id: z.string().min(1).max(512),
    client_secret: z.string().min(1).max(4096).nullish(),
    default_role: NonOwnerRole.default('member'),
    allowed_domains: z.array(Domain).max(100).nullish(),
    enabled: z.boolean().default(true),
  })
  .strict();

/** PATCH /orgs/{org_id}/sso: every field optional. */
export const SsoConnectionPatchSchema = z
  .object({
    display_name: z.string().trim().min(1).max(200).optional(),
    issuer: z.string().trim().min(1).max(2048).optional(),
    client_id: z.string().min(1).max(512).optional(),
    client_secret: z.string().min(1).max(4096).nullable().optional(),
    default_role: NonOwnerRole.optional(),
    allowed_domains: z.array(Domain).max(100).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

/** POST /auth/sso/discover. */
export const SsoDiscoverSchema = z.object({ email: z.string().trim().min(3).max(320).email() });

/** GET /auth/sso/callback: the provider chooses further parameters (iss, session_state, ...). */
export const SsoCallbackQuery = z.looseObject({ code: z.string().max(4096).optional(), state: z.string().max(4096).optional() });

/**
 * The `{domain}` of POST /orgs/{org_id}/sso/domains/{domain}/verify and its /admin mirror: an
 * e-mail domain as allowed_domains takes it, lower-cased.
 */
export const SsoDomainParam = Domain.transform((d) => d.toLowerCase().replace(/^@/, ''));
