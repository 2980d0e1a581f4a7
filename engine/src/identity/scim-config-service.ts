import { ConflictError, NotFoundError, UnauthorizedError, ForbiddenError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { linearPatternError } from '../core/linear-regex';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import type { GroupRoleMapping, ScimConfigDoc } from './scim-store';
import { randomToken, sha256Hex } from './secrets';
import type { OrgRole } from './types';

/** Body of POST (all) and PATCH (any subset) /orgs/{org_id}/scim. */
export interface ScimConfigInput {
  enabled?: boolean;
  default_role?: Exclude<OrgRole, 'owner'>;
  group_role_mappings?: GroupRoleMapping[];
}

/** Presenter (identity-api.md "SCIM config"): never the token or its hash. `baseUrl` is the tenant URL. */
export function presentScimConfig(c: ScimConfigDoc, baseUrl: string) {
  return {
    enabled: c.enabled,
    default_role: c.default_role,
    group_role_mappings: c.group_role_mappings,
    token_set: true,
    base_url: baseUrl,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

function audited(c: ScimConfigDoc) {
  return { enabled: c.enabled, default_role: c.default_role, group_role_mappings: c.group_role_mappings, updated_at: c.updated_at };
}

/**
 * ValidationError (422, identity-api.md "SCIM": uncompilable pattern) naming the first pattern
 * the linear-time engine cannot compile (RE2 syntax: no backreferences or lookaround;
 * linear-regex.ts), with the parser's reason.
 */
function checkPatterns(mappings: readonly GroupRoleMapping[] | undefined): void {
  for (const [i, m] of (mappings ?? []).entries()) {
    const error = linearPatternError(m.pattern);
    if (error !== null) throw new ValidationError(`group_role_mappings.${i}.pattern: not a valid RE2 regular expression (${error})`);
  }
}

async function requireConfig(ctx: IdentityCtx, orgId: string): Promise<ScimConfigDoc> {
  const found = await ctx.engine.stores.scim.get(orgId);
  if (!found) throw new NotFoundError('SCIM is not configured');
  return found;
}

const newToken = () => randomToken('scim_');

/**
 * POST /orgs/{org_id}/scim: creates the configuration and its bearer token, returned once as
 * `{token}` (only its SHA-256 is stored). 409 exists; 422 uncompilable pattern (owner roles are
 * refused by the route schema). Audited scim.config.create.
 */
export async function createScimConfig(ctx: IdentityCtx, orgId: string, input: ScimConfigInput): Promise<{ token: string }> {
  checkPatterns(input.group_role_mappings);
  if (await ctx.engine.stores.scim.get(orgId)) throw new ConflictError('SCIM is already configured for this organization');
  const token = newToken();
  const now = isoNow(ctx);
  const doc: ScimConfigDoc = {
    org_id: orgId,
    enabled: input.enabled ?? true,
    default_role: input.default_role ?? 'member',
    group_role_mappings: input.group_role_mappings ?? [],
    token_hash: sha256Hex(token),
    created_at: now,
    updated_at: now,
  };
  try {
    await ctx.engine.stores.scim.insert(doc);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError('SCIM is already configured for this organization');
    throw error;
  }
  await recordAudit(ctx, { orgId, action: 'scim.config.create', targetType: 'scim_config', targetId: orgId, before: null, after: audited(doc) });
  return { token };
}

/** GET /orgs/{org_id}/scim; 404 none. */
export async function getScimConfig(ctx: IdentityCtx, orgId: string, baseUrl: string) {
  return presentScimConfig(await requireConfig(ctx, orgId), baseUrl);
}

/** PATCH /orgs/{org_id}/scim: partial, the token untouched. 404; 422 bad pattern. Audited scim.config.update. */
export async function updateScimConfig(ctx: IdentityCtx, orgId: string, input: ScimConfigInput, baseUrl: string) {
  checkPatterns(input.group_role_mappings);
  const before = await requireConfig(ctx, orgId);
  const after = await ctx.engine.stores.scim.update(orgId, { ...input, updated_at: isoNow(ctx) });
  if (!after) throw new NotFoundError('SCIM is not configured');
  await recordAudit(ctx, { orgId, action: 'scim.config.update', targetType: 'scim_config', targetId: orgId, before: audited(before), after: audited(after) });
  return presentScimConfig(after, baseUrl);
}

/** POST /orgs/{org_id}/scim/rotate-token: a new token; the old one fails from the next request. 404. Audited scim.token.rotate. */
export async function rotateScimToken(ctx: IdentityCtx, orgId: string): Promise<{ token: string }> {
  await requireConfig(ctx, orgId);
  const token = newToken();
  const after = await ctx.engine.stores.scim.update(orgId, { token_hash: sha256Hex(token), updated_at: isoNow(ctx) });
  if (!after) throw new NotFoundError('SCIM is not configured');
  await recordAudit(ctx, {
    orgId,
    action: 'scim.token.rotate',
    targetType: 'scim_config',
    targetId: orgId,
    before: null,
    after: { rotated_at: after.updated_at },
  });
  return { token };
}

/** DELETE /orgs/{org_id}/scim: removes the configuration and so the token; teams and memberships kept. 404. */
export async function deleteScimConfig(ctx: IdentityCtx, orgId: string): Promise<void> {
  const before = await requireConfig(ctx, orgId);
  await ctx.engine.stores.scim.remove(orgId);
  await recordAudit(ctx, { orgId, action: 'scim.config.delete', targetType: 'scim_config', targetId: orgId, before: audited(before), after: null });
}

/**
 * The SCIM bearer credential (identity-api.md "SCIM"): the configuration whose token hash
 * matches `token`. UnauthorizedError (401) missing, unknown or disabled; ForbiddenError (403)
 * a valid token of another org than `pathOrgId`.
 */
export async function authenticateScimToken(ctx: IdentityCtx, token: string | null, pathOrgId: string): Promise<ScimConfigDoc> {
  const config = token ? await ctx.engine.stores.scim.unsafeByTokenHash(sha256Hex(token)) : null;
  if (!config?.enabled) throw new UnauthorizedError('Missing, invalid or disabled SCIM token');
  if (config.org_id !== pathOrgId) throw new ForbiddenError('This SCIM token belongs to another organization');
  return config;
}
