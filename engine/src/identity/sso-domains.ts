import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/record';
import { ConflictError, NotFoundError, UpstreamError, ValidationError } from '../core/errors';
import type { TxtLookup } from '../net/dns-txt';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import type { SsoConnectionDoc, SsoDomainClaimDoc, SsoVerifiedDomainDoc } from './sso-store';

/**
 * E-mail domains of an org's SSO connection count only once verified (DESIGN.md "what a tenant
 * may claim"; docs/decisions.md "SSO domain verification"). A domain in `allowed_domains` is a
 * pending claim with a random token; the org proves it holds the domain by publishing
 *
 *     _planwarden-challenge.<domain>  TXT  "planwarden-domain-verification=<token>"
 *
 * (the shape Okta, Slack and GitHub use: a fixed label under the domain, a fixed prefix, a
 * per-claim random value) and asking to verify, or a superadmin approves it. Several orgs may
 * hold a pending claim on one domain; at most one holds it verified.
 */

/** The label under the domain where the TXT record is published. */
export const CHALLENGE_LABEL = '_planwarden-challenge';
/** The TXT value's fixed prefix; the token (40 hex digits) follows it. */
export const TXT_PREFIX = 'planwarden-domain-verification=';

/** One domain's verification as GET/POST/PATCH /orgs/{org_id}/sso present it (`domains`). */
export interface DomainStatus {
  readonly domain: string;
  readonly status: 'pending' | 'verified';
  readonly verified_at: string | null;
  readonly verified_by: 'dns' | 'superadmin' | null;
  /** Where to publish the TXT record. */
  readonly txt_record_name: string;
  /** The TXT record's exact value. */
  readonly txt_record_value: string;
}

/** `_planwarden-challenge.<domain>`. */
export function txtRecordName(domain: string): string {
  return `${CHALLENGE_LABEL}.${domain}`;
}

function present(claim: SsoDomainClaimDoc, verified: SsoVerifiedDomainDoc | undefined): DomainStatus {
  return {
    domain: claim.domain,
    status: verified ? 'verified' : 'pending',
    verified_at: verified?.verified_at ?? null,
    verified_by: verified?.verified_by ?? null,
    txt_record_name: txtRecordName(claim.domain),
    txt_record_value: `${TXT_PREFIX}${claim.token}`,
  };
}

/**
 * ConflictError (409, identity-api.md "Single sign-on": a domain is claimed by another org) when
 * another org holds one of `domains` verified. A pending claim elsewhere never conflicts: it
 * proves nothing, and refusing it would let a squatter lock the domain's owner out.
 */
export async function assertDomainsFree(ctx: IdentityCtx, orgId: string, domains: readonly string[]): Promise<void> {
  for (const domain of domains) {
    const holder = await ctx.engine.stores.sso.unsafeVerifiedOrgForDomain(domain);
    if (holder !== null && holder !== orgId) throw new ConflictError(`The domain ${domain} is claimed by another organization's SSO connection`);
  }
}

/**
 * Makes the connection's `allowed_domains` the org's claims (a new claim gets a fresh random
 * token; a dropped domain loses its claim and verification; null drops every claim) and returns
 * each domain's status in `allowed_domains` order. Also fills in claims for connections made
 * before verification existed, which start pending.
 */
export async function syncDomainStatuses(ctx: IdentityCtx, connection: Pick<SsoConnectionDoc, 'org_id' | 'allowed_domains'>): Promise<DomainStatus[]> {
  const { sso } = ctx.engine.stores;
  const orgId = connection.org_id;
  const domains = connection.allowed_domains ?? [];
  const now = isoNow(ctx);
  const claims = await sso.syncClaims(orgId, domains, (domain) => ({ org_id: orgId, domain, token: randomBytes(20).toString('hex'), created_at: now }));
  const verified = new Map((await sso.verifiedFor(orgId)).map((v) => [v.domain, v]));
  const byDomain = new Map(claims.map((c) => [c.domain, c]));
  return domains.flatMap((d) => (byDomain.has(d) ? [present(byDomain.get(d)!, verified.get(d))] : []));
}

/** The org's claim on `domain` (normalised), synced from its connection; NotFoundError (404) otherwise. */
async function claimOf(ctx: IdentityCtx, orgId: string, rawDomain: string): Promise<SsoDomainClaimDoc> {
  const connection = await ctx.engine.stores.sso.get(orgId);
  if (!connection) throw new NotFoundError('No SSO connection is configured');
  const domain = rawDomain.trim().toLowerCase();
  await syncDomainStatuses(ctx, connection);
  const claim = await ctx.engine.stores.sso.claim(orgId, domain);
  if (!claim) throw new NotFoundError(`${domain} is not one of this SSO connection's allowed domains`);
  return claim;
}

/** Records the verification (409 another org was quicker), audited `sso.domain_verify`. */
async function markVerified(ctx: IdentityCtx, claim: SsoDomainClaimDoc, by: 'dns' | 'superadmin'): Promise<DomainStatus> {
  const doc: SsoVerifiedDomainDoc = { domain: claim.domain, org_id: claim.org_id, verified_at: isoNow(ctx), verified_by: by };
  try {
    await ctx.engine.stores.sso.markVerified(doc);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`The domain ${claim.domain} is verified by another organization`);
    throw error;
  }
  await recordAudit(ctx, {
    orgId: claim.org_id,
    action: 'sso.domain_verify',
    targetType: 'sso_domain',
    targetId: claim.domain,
    before: { domain: claim.domain, status: 'pending' },
    after: { domain: claim.domain, status: 'verified', verified_by: by },
  });
  return present(claim, doc);
}

/** The claim's status when this org already holds it verified; ConflictError (409) when another org does; null when free. */
async function settled(ctx: IdentityCtx, claim: SsoDomainClaimDoc): Promise<DomainStatus | null> {
  const holder = await ctx.engine.stores.sso.unsafeVerifiedOrgForDomain(claim.domain);
  if (holder === null) return null;
  if (holder !== claim.org_id) throw new ConflictError(`The domain ${claim.domain} is verified by another organization`);
  return present(
    claim,
    (await ctx.engine.stores.sso.verifiedFor(claim.org_id)).find((v) => v.domain === claim.domain),
  );
}

/**
 * POST /orgs/{org_id}/sso/domains/{domain}/verify (admin): looks the TXT record up at
 * `_planwarden-challenge.<domain>` through `lookup` and verifies the domain when one record
 * equals `planwarden-domain-verification=<token>`. Idempotent once verified. 404 no connection or
 * the domain is not in allowed_domains; 409 another org holds it verified; 422 no TXT record or
 * none with the token (the detail names the record looked for); 502 the resolver did not answer.
 * Returns the DomainStatus.
 */
export async function verifyDomainByDns(ctx: IdentityCtx, orgId: string, domain: string, lookup: TxtLookup): Promise<DomainStatus> {
  const claim = await claimOf(ctx, orgId, domain);
  const done = await settled(ctx, claim);
  if (done) return done;
  const name = txtRecordName(claim.domain);
  const value = `${TXT_PREFIX}${claim.token}`;
  const answer = await lookup(name);
  if (answer.kind === 'unreachable') throw new UpstreamError(`The DNS resolver did not answer the TXT lookup of ${name} (${answer.reason}); try again later`);
  if (answer.kind === 'none')
    throw new ValidationError(`No TXT record found at ${name}; publish the TXT record "${value}" there and try again (DNS changes can take a while to appear)`);
  if (!answer.records.some((r) => r.trim() === value)) {
    throw new ValidationError(
      `The TXT record${answer.records.length === 1 ? '' : 's'} at ${name} do${answer.records.length === 1 ? 'es' : ''} not hold "${value}"; publish it and try again`,
    );
  }
  return markVerified(ctx, claim, 'dns');
}

/**
 * POST /admin/organizations/{org_id}/sso/domains/{domain}/verify (superadmin): verifies a
 * pending claim on the platform operator's word, for an org that cannot publish DNS records.
 * Audited `sso.domain_verify` (verified_by superadmin). 404 no connection or domain not claimed;
 * 409 another org holds it verified. Returns the DomainStatus.
 */
export async function approveDomain(ctx: IdentityCtx, orgId: string, domain: string): Promise<DomainStatus> {
  const claim = await claimOf(ctx, orgId, domain);
  return (await settled(ctx, claim)) ?? markVerified(ctx, claim, 'superadmin');
}

/** Whether `orgId` holds `domain` (lower-cased) verified. */
export async function domainVerifiedBy(ctx: IdentityCtx, orgId: string, domain: string): Promise<boolean> {
  return domain !== '' && (await ctx.engine.stores.sso.unsafeVerifiedOrgForDomain(domain)) === orgId;
}
