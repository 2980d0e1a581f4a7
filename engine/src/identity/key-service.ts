import { ForbiddenError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { Stores } from '../context/engine-context';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { randomId, randomToken, sha256Hex } from './secrets';
import { ORG_ROLE_RANK, type ApiKeyDoc, type OrgRole } from './types';

/** Presenter: identity-api.md "Service-account key" (never the raw key or its hash). */
export function presentKey(k: ApiKeyDoc) {
  return {
    key_id: k.key_id,
    role: k.role,
    name: k.name,
    ip_allowlist: k.ip_allowlist,
    created_at: k.created_at,
    is_active: k.is_active,
    last_used_at: k.last_used_at ?? null,
  };
}

/**
 * POST /auth/keys: creates a service-account key in `orgId`. The raw key is returned once and
 * only its SHA-256 is stored. `ipAllowlist` entries are validated by the caller's schema.
 * `grantorRole` is the caller's effective role: a key never carries more than its creator
 * holds now (an admin cannot mint an owner key; a demoted session cannot mint its old role),
 * else ForbiddenError (403). Audited api_key.create.
 */
export async function createApiKey(
  ctx: IdentityCtx,
  orgId: string,
  input: { role: OrgRole; name: string | null; ip_allowlist: string[] | null },
  grantorRole: OrgRole,
) {
  if (ORG_ROLE_RANK[input.role] > ORG_ROLE_RANK[grantorRole]) {
    throw new ForbiddenError(`A key cannot have a role (${input.role}) above yours (${grantorRole})`);
  }
  const raw = randomToken('pwk_');
  const doc: ApiKeyDoc = {
    org_id: orgId,
    key_id: randomId('key'),
    key_hash: sha256Hex(raw),
    role: input.role,
    name: input.name,
    ip_allowlist: input.ip_allowlist,
    is_active: true,
    created_by: ctx.actor.userId ?? ctx.actor.keyId,
    created_at: isoNow(ctx),
    revoked_at: null,
  };
  await ctx.engine.stores.apiKeys.insert(doc);
  const presented = presentKey(doc);
  await recordAudit(ctx, { orgId, action: 'api_key.create', targetType: 'api_key', targetId: doc.key_id, before: null, after: presented });
  return { ...presented, key: raw };
}

/** How stale a key's recorded last use may be: one write a minute per key in use, not one per request. */
export const KEY_USE_RESOLUTION_MS = 60_000;

/**
 * Records that `doc` authenticated a request at `now` (`last_used_at`, shown by GET /auth/keys:
 * docs/decisions.md "Service keys"), unless its recorded use is under KEY_USE_RESOLUTION_MS old.
 */
export async function recordKeyUse(stores: Stores, doc: ApiKeyDoc, now: Date): Promise<void> {
  if (doc.last_used_at && now.getTime() - Date.parse(doc.last_used_at) < KEY_USE_RESOLUTION_MS) return;
  await stores.apiKeys.markUsed(doc.org_id, doc.key_id, now.toISOString());
}

/** GET /auth/keys: the org's keys, revoked ones included (is_active false). */
export async function listApiKeys(ctx: IdentityCtx, orgId: string) {
  return (await ctx.engine.stores.apiKeys.list(orgId)).map(presentKey);
}

/** DELETE /auth/keys/{key_id}: revokes at once; 404 unknown or another org's key. Audited api_key.revoke. */
export async function revokeApiKey(ctx: IdentityCtx, orgId: string, keyId: string) {
  const before = await ctx.engine.stores.apiKeys.get(orgId, keyId);
  if (!before) throw new NotFoundError('Key not found');
  const after = await ctx.engine.stores.apiKeys.revoke(orgId, keyId, isoNow(ctx));
  await recordAudit(ctx, {
    orgId,
    action: 'api_key.revoke',
    targetType: 'api_key',
    targetId: keyId,
    before: presentKey(before),
    after: after ? presentKey(after) : null,
  });
  return { key_id: keyId, is_active: false };
}
