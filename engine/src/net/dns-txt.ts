import { Resolver } from 'node:dns/promises';

/**
 * TXT look-ups for domain verification (docs/decisions.md "SSO domain verification"), through a
 * resolver the operator chooses (`sso.dns_servers`), so an air-gapped or split-horizon
 * deployment asks its own DNS and tests ask a local one.
 */

/** What a TXT look-up found: the records (each one's character-strings joined), none, or no answer. */
export type TxtAnswer =
  | { readonly kind: 'records'; readonly records: readonly string[] }
  | { readonly kind: 'none' }
  | { readonly kind: 'unreachable'; readonly reason: string };

/** Looks up the TXT records at a fully qualified name. Never throws. */
export type TxtLookup = (name: string) => Promise<TxtAnswer>;

/** c-ares codes that mean "the name has no TXT record" (RFC 2308: NXDOMAIN or NODATA), not a resolver failure. */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * A TxtLookup over Node's c-ares resolver (`dns.promises.Resolver`): `servers` are `ip` or
 * `ip:port` entries for `setServers` (empty = the system's resolvers), each try bounded by
 * `timeoutMs`, two tries. NXDOMAIN/NODATA → `none`; refused, timed out, SERVFAIL and the like
 * → `unreachable` with the resolver's code. A record split into several character-strings
 * (RFC 7208 §3.3) is joined before it is compared.
 */
export function dnsTxtLookup(options: { readonly servers: readonly string[]; readonly timeoutMs: number }): TxtLookup {
  return async (name) => {
    const resolver = new Resolver({ timeout: Math.max(1, Math.round(options.timeoutMs / 2)), tries: 2 });
    if (options.servers.length > 0) resolver.setServers([...options.servers]);
    try {
      const rows = await resolver.resolveTxt(name);
      return rows.length === 0 ? { kind: 'none' } : { kind: 'records', records: rows.map((chunks) => chunks.join('')) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return ABSENT.has(code) ? { kind: 'none' } : { kind: 'unreachable', reason: code };
    } finally {
      resolver.cancel();
    }
  };
}
