import { describe, expect, it } from 'vitest';
import { LEGACY_CREATED_WINDOW_MS, orgCreatedAccount } from './account-stewardship';
import type { MembershipDoc, UserDoc } from './types';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const user = { user_id: 'usr_1', created_at: at(0) } as UserDoc;
const membership = (orgId: string, createdMs: number, extra: Partial<MembershipDoc> = {}): MembershipDoc => ({
  org_id: orgId,
  user_id: 'usr_1',
  role: 'member',
  is_active: true,
  created_at: at(createdMs),
  updated_at: at(createdMs),
  ...extra,
});

describe('orgCreatedAccount: stewardship follows provenance', () => {
  it('a membership written since the field exists says it outright, whatever its timestamps', () => {
    const created = membership('org_a', 10, { created_account: true });
    expect(orgCreatedAccount(created, user, [created])).toBe(true);
    const linked = membership('org_a', 10, { created_account: false });
    expect(orgCreatedAccount(linked, user, [linked])).toBe(false);
    const late = membership('org_a', 86_400_000, { created_account: true });
    expect(orgCreatedAccount(late, user, [late])).toBe(true);
  });

  it("a legacy membership (no field) counts as created only as the account's first one, stored with the account", () => {
    const first = membership('org_a', 3);
    expect(orgCreatedAccount(first, user, [first])).toBe(true);
    const edge = membership('org_a', LEGACY_CREATED_WINDOW_MS);
    expect(orgCreatedAccount(edge, user, [edge])).toBe(true);
    // Joined later with an existing account (SCIM link, invitation accepted, new org): the holder's.
    const later = membership('org_a', LEGACY_CREATED_WINDOW_MS + 1);
    expect(orgCreatedAccount(later, user, [later])).toBe(false);
    // Not the first membership, even when close in time.
    const second = membership('org_b', 4);
    expect(orgCreatedAccount(second, user, [first, second])).toBe(false);
    // Added by e-mail never counts; nor a membership dated before the account.
    const added = membership('org_a', 2, { added_by_email: true });
    expect(orgCreatedAccount(added, user, [added])).toBe(false);
    const before = membership('org_a', -1);
    expect(orgCreatedAccount(before, user, [before])).toBe(false);
  });
});
