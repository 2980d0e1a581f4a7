import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../core/errors';

/**
 * The one egress policy for every URL a tenant sets (review webhook, notification channels,
 * run-task plan downloads and callbacks; DESIGN.md "Outbound traffic"):
 * - http(s) only, no credentials in the URL;
 * - literal addresses in any spelling (the WHATWG URL parser normalises `2130706433`,
 *   `0x7f000001`, `0177.0.0.1`, `[::ffff:127.0.0.1]` to their canonical form) are classified
 *   with ipaddr.js: only globally routable unicast passes. Refused: loopback, RFC 1918 private,
 *   link-local (cloud metadata 169.254.169.254), CGNAT, unspecified, multicast, reserved, IPv6
 *   unique-local / link-local / loopback / unspecified, and IPv4-mapped or IPv4-compatible IPv6
 *   forms of refused IPv4 addresses;
 * - host names are resolved at connection time by a `lookup` that checks every resolved address
 *   and hands the connection only checked addresses, so DNS rebinding cannot swap the target
 *   between the check and the connect;
 * - redirects are never followed (a 3xx is returned to the caller as is).
 * The operator's `egress.allowlist` (host names, IPs, CIDR blocks) lifts the refusal.
 */

/** The operator's setting (`egress.allowlist`) plus, for tests, the resolver to use. */
export interface EgressPolicy {
  /** Host names (exact, case-insensitive), IP addresses or CIDR blocks trusted despite the ranges. */
  readonly allowlist: readonly string[];
  /** Resolves a host name to every address (default: the system resolver, `dns.lookup` all). */
  readonly resolve?: (hostname: string) => Promise<readonly { address: string; family: number }[]>;
}

/** No allowlist: every refused range stays refused. */
export const STRICT_EGRESS: EgressPolicy = { allowlist: [] };

/** A URL the policy refuses; 422 when it surfaces from a request (the detail names rule and setting). */
export class EgressRefusedError extends ValidationError {}

const SETTING_HINT = 'outbound requests to it are refused unless the operator lists it in egress.allowlist';

/** Human names of ipaddr.js range names, for the 422 detail. */
const RANGE_LABELS: Record<string, string> = {
  loopback: 'a loopback',
  private: 'a private (RFC 1918)',
  linkLocal: 'a link-local (cloud metadata)',
  carrierGradeNat: 'a carrier-grade NAT (RFC 6598)',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  uniqueLocal: 'an IPv6 unique-local',
  ipv4Compatible: 'an IPv4-compatible IPv6',
};

/** Names that always mean this host or the cloud metadata service, whatever DNS says. */
const FORBIDDEN_HOSTS = new Set(['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data']);

/** `::/96`, the deprecated IPv4-compatible form (`::127.0.0.1`); ipaddr.js calls it unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged as the IPv4 address it carries. */
function unwrap(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/**
 * The refused range an address falls in (ipaddr.js range names, plus `ipv4Compatible`), or
 * null for globally routable unicast. `address` is a canonical IPv4 or IPv6 string (no brackets).
 */
export function refusedRange(address: string): string | null {
  const parsed = unwrap(ipaddr.parse(address));
  const range = parsed.range();
  if (range !== 'unicast') return range;
  return parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : null;
}

interface CompiledAllowlist {
  readonly hosts: ReadonlySet<string>;
  readonly ranges: readonly [Address, number][];
}

function canonicalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** Splits allowlist entries into host names and address ranges (a bare IP is a /32 or /128). */
function compile(policy: EgressPolicy): CompiledAllowlist {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  for (const raw of policy.allowlist) {
    const entry = raw.trim();
    try {
      if (entry.includes('/')) ranges.push(ipaddr.parseCIDR(entry));
      else if (ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv6.isValid(canonicalHost(entry))) {
        const address = ipaddr.parse(canonicalHost(entry));
        ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else hosts.add(canonicalHost(entry));
    } catch {
      hosts.add(canonicalHost(entry)); // a malformed CIDR matches nothing as a host name
    }
  }
  return { hosts, ranges };
}

function inAllowlist(address: string, allow: CompiledAllowlist): boolean {
  const parsed = unwrap(ipaddr.parse(address));
  return allow.ranges.some(([range, bits]) => {
    const target = unwrap(range);
    const width = target === range ? bits : bits - 96;
    return parsed.kind() === target.kind() && parsed.match(target, width);
  });
}

/** Why `address` (reached for `host`) is refused, or null when it may be contacted. */
function addressRefusal(address: string, allow: CompiledAllowlist): string | null {
  if (inAllowlist(address, allow)) return null;
  const range = refusedRange(address);
  if (range === null) return null;
  return `${RANGE_LABELS[range] ?? `a reserved (${range})`} address`;
}

/**
 * Static check of a tenant-set URL, before any DNS or connection (analysis-api.md "Notification
 * channels": validated against the egress policy at save). Returns the parsed URL.
 * Throws EgressRefusedError (422) naming the rule and the setting: not an absolute URL, a scheme
 * other than http/https, credentials in the URL, a literal address in a refused range, or a
 * host name reserved for this host or the metadata service — unless allowlisted.
 */
export function assertEgressAllowed(url: string | URL, policy: EgressPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EgressRefusedError('url: not an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new EgressRefusedError('url: only http and https are allowed');
  if (parsed.username || parsed.password) throw new EgressRefusedError('url: credentials in the URL are not allowed');
  const host = canonicalHost(parsed.hostname);
  const allow = compile(policy);
  if (allow.hosts.has(host)) return parsed;
  if (ipaddr.isValid(host)) {
    const refusal = addressRefusal(host, allow);
    if (refusal) throw new EgressRefusedError(`url: ${host} is ${refusal}; ${SETTING_HINT}`);
    return parsed;
  }
  if (FORBIDDEN_HOSTS.has(host) || host.endsWith('.localhost')) {
    throw new EgressRefusedError(`url: the host name ${host} designates this machine or a metadata service; ${SETTING_HINT}`);
  }
  return parsed;
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A `net` lookup that resolves with the policy's resolver, refuses the whole host when any of
 * its addresses is refused, and otherwise hands the socket only those checked addresses: the
 * address connected to is always one that was checked.
 */
function pinnedLookup(policy: EgressPolicy, allow: CompiledAllowlist): LookupFunction {
  const resolve = policy.resolve ?? systemResolve;
  const lookup = (hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    resolve(hostname)
      .then((resolved) => {
        const addresses = family === 4 || family === 6 ? resolved.filter((a) => a.family === family) : resolved;
        if (addresses.length === 0) throw new Error(`${hostname} did not resolve`);
        for (const { address } of addresses) {
          const refusal = allow.hosts.has(canonicalHost(hostname)) ? null : addressRefusal(address, allow);
          if (refusal) throw new EgressRefusedError(`url: ${hostname} resolves to ${address}, ${refusal}; ${SETTING_HINT}`);
        }
        if (options.all)
          callback(
            null,
            addresses.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, addresses[0].address, addresses[0].family);
      })
      .catch((error: unknown) => callback(error));
  };
  return lookup as unknown as LookupFunction;
}

export interface EgressRequestInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Whole-exchange limit in ms (connect, send, receive); default 10 000. */
  readonly timeoutMs?: number;
  /** Largest response body kept, in bytes; a larger one fails the call. Default 1 MiB. */
  readonly maxResponseBytes?: number;
}

export interface EgressResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The body as UTF-8 text. */
  text(): string;
}

/**
 * One HTTP(S) exchange with a tenant-set URL under the egress policy: the static check
 * (assertEgressAllowed), then a request whose socket connects only to resolved-and-checked
 * addresses; no redirect is followed, no connection is pooled.
 * Resolves with status, headers and the body (any status, 3xx included). Rejects with
 * EgressRefusedError before any connection when the URL or a resolved address is refused, and
 * with an Error on DNS, connection, timeout or oversize-body failure.
 */
export async function egressFetch(url: string | URL, init: EgressRequestInit, policy: EgressPolicy): Promise<EgressResponse> {
  const target = assertEgressAllowed(url, policy);
  const allow = compile(policy);
  const client = target.protocol === 'https:' ? https : http;
  const limit = init.maxResponseBytes ?? 1024 * 1024;
  return new Promise<EgressResponse>((resolvePromise, reject) => {
    const request = client.request(
      target,
      {
        method: init.method ?? 'GET',
        headers: init.headers,
        agent: false,
        lookup: pinnedLookup(policy, allow),
        timeout: init.timeoutMs ?? 10_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            request.destroy(new Error(`response body larger than ${limit} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolvePromise({ status: response.statusCode ?? 0, headers: response.headers, body, text: () => body.toString('utf8') });
        });
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no complete answer within ${init.timeoutMs ?? 10_000} ms`)), init.timeoutMs ?? 10_000);
    deadline.unref();
    request.on('timeout', () => request.destroy(new Error('connection timed out')));
    request.on('error', reject);
    request.on('close', () => clearTimeout(deadline));
    request.end(init.body);
  });
}
