import { randomBytes } from 'node:crypto';
import { createApiKey } from '../../engine/src/identity/key-service';
import type { TestServer } from './test-server';

/** Role names of identity-api.md "Rules by role". */
export type TestRole = 'viewer' | 'member' | 'admin' | 'owner';

/** A service key of the default org with `role`, made over HTTP (POST /auth/keys). Returns headers using it. */
export async function roleHeaders(server: TestServer, role: TestRole): Promise<Record<string, string>> {
  const res = await server.api('/auth/keys', { method: 'POST', json: { role, name: `test-${role}` } });
  if (res.status !== 201) throw new Error(`POST /auth/keys answered ${res.status}`);
  const { key } = (await res.json()) as { key: string };
  return { 'X-API-Key': key };
}

/**
 * A second org with an owner key, made through the stores (the test needs a foreign tenant,
 * not the org-creation flow, which requires a human session). Returns its id and headers.
 */
export async function otherOrg(server: TestServer): Promise<{ orgId: string; headers: Record<string, string> }> {
  const engine = server.services.engine;
  const orgId = `org_${randomBytes(6).toString('hex')}`;
  await engine.stores.orgs.ensure({ org_id: orgId, name: `Other ${orgId}`, slug: orgId }, engine.now().toISOString());
  const actor = { userId: null, keyId: null, email: null, isSuperadmin: false, ip: null, requestId: null };
  const key = await createApiKey({ engine, actor }, orgId, { role: 'owner', name: 'other-org', ip_allowlist: null }, 'owner');
  return { orgId, headers: { 'X-API-Key': key.key } };
}
