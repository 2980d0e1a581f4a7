import { describe, expect, it } from 'vitest';
import { SessionRegistry, type TrackedSession } from './session-registry';

const session = (owner: string, org: string): TrackedSession => ({ owner, org, open: 0, used: 0 });

describe('SessionRegistry', () => {
  it('never lets one org reach the total, even when its own cap is configured above it', () => {
    const evicted: TrackedSession[] = [];
    const registry = new SessionRegistry(
      () => ({ maxSessions: 5, maxPerOrg: 50, maxPerPrincipal: 50 }),
      (s) => evicted.push(s),
    );
    const flood = Array.from({ length: 20 }, (_, i) => session(`key-${i}`, 'a'));
    for (const s of flood) expect(registry.admit(s)).toBeNull();
    expect(registry.sessions((s) => s.org === 'a')).toHaveLength(4);
    expect(evicted).toEqual(flood.slice(0, 16)); // oldest first
    expect(registry.admit(session('other', 'b'))).toBeNull();
    expect(registry.size).toBe(5);
  });

  it('refuses with 429 when the principal has no idle session, 503 when nothing in the process is idle', () => {
    const registry = new SessionRegistry(
      () => ({ maxSessions: 3, maxPerOrg: 2, maxPerPrincipal: 1 }),
      () => {},
    );
    const busy = (s: TrackedSession) => {
      s.open = 1;
      return s;
    };
    expect(registry.admit(busy(session('k', 'a')))).toBeNull();
    expect(registry.admit(session('k', 'a'))).toMatchObject({ status: 429 });
    expect(registry.admit(busy(session('k2', 'a')))).toBeNull();
    expect(registry.admit(session('k3', 'a'))).toMatchObject({ status: 429, message: expect.stringMatching(/organization/) });
    expect(registry.admit(busy(session('k4', 'b')))).toBeNull();
    expect(registry.admit(session('k5', 'c'))).toMatchObject({ status: 503 });
  });
});
