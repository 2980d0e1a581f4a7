import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/**
 * The caller's address: the leftmost `X-Forwarded-For` hop when `trustProxy` (identity-api.md
 * "Service-account key"), else the socket's peer. IPv4-mapped IPv6 is unwrapped.
 */
export function clientIp(req: Request, trustProxy: boolean): string | null {
  const forwarded = trustProxy ? req.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
  const raw = forwarded || req.socket.remoteAddress || null;
  if (!raw || !ipaddr.isValid(raw)) return raw;
  const parsed = ipaddr.parse(raw);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address().toString() : parsed.toString();
}

/** A strictly written address: dotted-quad IPv4 (no `10.0.0` shorthand) or IPv6. */
function isStrictAddress(value: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value);
}

/** Whether an allowlist entry is a bare IP (v4 or v6) or a CIDR block. */
export function isAllowlistEntry(entry: string): boolean {
  if (entry.includes('/')) {
    if (!isStrictAddress(entry.slice(0, entry.indexOf('/')))) return false;
    try {
      ipaddr.parseCIDR(entry);
      return true;
    } catch {
      return false;
    }
  }
  return isStrictAddress(entry);
}

/** Whether `ip` is inside one of `allowlist`'s entries (bare IPs are /32 or /128). */
export function ipAllowed(ip: string | null, allowlist: readonly string[]): boolean {
  if (!ip || !ipaddr.isValid(ip)) return false;
  const addr = ipaddr.parse(ip);
  return allowlist.some((entry) => {
    try {
      const [range, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128];
      const candidate =
        addr.kind() === range.kind()
          ? addr
          : addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
            ? (addr as ipaddr.IPv6).toIPv4Address()
            : addr.kind() === 'ipv4'
              ? (addr as ipaddr.IPv4).toIPv4MappedAddress()
              : addr;
      return candidate.kind() === range.kind() && candidate.match(range, bits as number);
    } catch {
      return false;
    }
  });
}
