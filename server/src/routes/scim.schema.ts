import { z } from 'zod';

const NonOwnerRole = z.enum(['viewer', 'member', 'admin']);
const Mapping = z.object({ pattern: z.string().min(1).max(500), role: NonOwnerRole }).strict();

/** POST /orgs/{org_id}/scim (identity-api.md "SCIM config"); owner roles are 422. */
export const ScimConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    default_role: NonOwnerRole.default('member'),
    group_role_mappings: z.array(Mapping).max(100).default([]),
  })
  .strict();

/** PATCH /orgs/{org_id}/scim: any subset. */
export const ScimConfigPatchSchema = z
  .object({
    enabled: z.boolean().optional(),
    default_role: NonOwnerRole.optional(),
    group_role_mappings: z.array(Mapping).max(100).optional(),
  })
  .strict();

/**
 * A SCIM list query (RFC 7644 §3.4.2). Loose: identity providers add parameters
 * (attributes, excludedAttributes, sortBy) we may ignore; numbers are read by the handler.
 */
export const ScimListQuerySchema = z.looseObject({
  filter: z.string().max(2000).optional(),
  startIndex: z.string().max(12).optional(),
  count: z.string().max(12).optional(),
});
