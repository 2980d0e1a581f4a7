import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store';
import type { Store } from '../store/port';
import { createStores, ensureSchema } from '../stores';
import type { Stores } from '../context/engine-context';
import { SecretBox } from '../llm/secret-box';
import { creatorLane, sandboxLane } from './template-sandbox-lane';

const NOW = '2026-11-22T10:00:00.000Z';

describe('sandboxLane: the account responsible for a render', () => {
  let store: Store;
  let stores: Stores;
  beforeEach(async () => {
    store = await openStore({ backend: 'memory' });
    await ensureSchema(store);
    stores = createStores(store, new SecretBox('lane-test-secret-key-material-000'));
    await stores.users.insert({ user_id: 'usr_a', email: 'a@example.com' } as never);
    const key = (key_id: string, org_id: string, created_by: string | null) =>
      stores.apiKeys.insert({
        org_id,
        key_id,
        key_hash: `h-${key_id}`,
        role: 'member',
        name: null,
        ip_allowlist: null,
        is_active: true,
        created_by,
        created_at: NOW,
        revoked_at: null,
      });
    await key('key_1', 'org_x', 'usr_a');
    await key('key_2', 'org_x', 'key_1'); // created by a key the account created
    await key('key_3', 'org_y', '_bootstrap');
    await key('key_4', 'org_y', 'key_4_gone');
  });
  afterEach(async () => {
    await store.close();
  });

  it('a session is its account; a key is the account that created it, through keys created by keys', async () => {
    expect(await sandboxLane({ stores }, 'org_x', { userId: 'usr_a', keyId: null })).toBe('user:usr_a');
    expect(await sandboxLane({ stores }, 'org_y', { userId: 'usr_a', keyId: null })).toBe('user:usr_a');
    expect(await sandboxLane({ stores }, 'org_x', { userId: null, keyId: 'key_1' })).toBe('user:usr_a');
    expect(await sandboxLane({ stores }, 'org_x', { userId: null, keyId: 'key_2' })).toBe('user:usr_a');
  });

  it("the operator's keys, auth-off callers and unknown creators count as their org", async () => {
    expect(await sandboxLane({ stores }, 'org_y', { userId: null, keyId: 'key_3' })).toBe('org:org_y');
    expect(await sandboxLane({ stores }, 'org_y', { userId: null, keyId: 'key_4' })).toBe('org:org_y');
    expect(await sandboxLane({ stores }, 'default', { userId: null, keyId: '_bootstrap' })).toBe('org:default');
    expect(await sandboxLane({ stores }, 'default', { userId: null, keyId: null })).toBe('org:default');
    // A key id of another org does not resolve (keys are looked up in the render's org).
    expect(await sandboxLane({ stores }, 'org_y', { userId: null, keyId: 'key_1' })).toBe('org:org_y');
  });

  it("a report link's creator: an e-mail, a user id or a key id", async () => {
    expect(await creatorLane({ stores }, 'org_x', 'A@example.com')).toBe('user:usr_a');
    expect(await creatorLane({ stores }, 'org_x', 'nobody@example.com')).toBe('org:org_x');
    expect(await creatorLane({ stores }, 'org_x', 'key_2')).toBe('user:usr_a');
    expect(await creatorLane({ stores }, 'org_x', null)).toBe('org:org_x');
  });
});
