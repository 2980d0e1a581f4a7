import { describe, expect, it } from 'vitest';
import { ipAllowed, isAllowlistEntry } from './ip';

describe('ip allowlists', () => {
  it('accepts bare IPs and CIDR blocks, refuses anything else', () => {
    for (const ok of ['10.0.0.1', '10.0.0.0/8', '2001:db8::1', '2001:db8::/32']) expect(isAllowlistEntry(ok)).toBe(true);
    for (const bad of ['10.0.0.0/33', 'example.com', '', '10.0.0']) expect(isAllowlistEntry(bad)).toBe(false);
  });

  it('matches bare IPs as /32 or /128, CIDR ranges, and IPv4-mapped IPv6 callers', () => {
    expect(ipAllowed('192.0.2.7', ['192.0.2.7'])).toBe(true);
    expect(ipAllowed('192.0.2.8', ['192.0.2.7'])).toBe(false);
    expect(ipAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('2001:db8::5', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::5', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed(null, ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('not-an-ip', ['0.0.0.0/0'])).toBe(false);
  });
});
