import { ConflictError } from '../core/errors';
import type { Collection, IndexSpec, Store } from '../store/port';
import type { OrgRole } from './types';

/** An org's OIDC connection (identity-api.md "SSO connection"); the client secret is sealed. */
export interface SsoConnectionDoc {
  _id?: string;
  org_id: string;
  display_name: string;
  issuer: string;
  client_id: string;
  /** SecretBox-sealed client secret, or null (a public client). Never presented. */
  client_secret_sealed: string | null;
  default_role: Exclude<OrgRole, 'owner'>;
  /** Lower-cased e-mail domains; null = any domain. */
  allowed_domains: string[] | null;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * One org's claim on an e-mail domain listed in its `allowed_domains`, with the random token the
 * org publishes in DNS to prove it holds the domain. Several orgs may claim one domain (a
 * squatter's pending claim must not block the owner); only a verification counts.
 */
export interface SsoDomainClaimDoc {
  _id?: string;
  org_id: string;
  domain: string;
  /** Published as `planwarden-domain-verification=<token>` (sso-domains.ts). Not a secret. */
  token: string;
  created_at: string;
}

/** A verified domain: at most one org holds it (unique index), by DNS TXT or a superadmin's approval. */
export interface SsoVerifiedDomainDoc {
  _id?: string;
  domain: string;
  org_id: string;
  verified_at: string;
  verified_by: 'dns' | 'superadmin';
}

// Claims and verifications live in their own collections: the older `sso_domains` (a claim
// made on the org's word alone) is no longer read, so nothing claimed before verification existed
// counts as verified.
export const SSO_INDEXES: Record<string, IndexSpec[]> = {
  sso_connections: [{ name: 'org', keys: { org_id: 1 }, unique: true }],
  sso_domain_claims: [{ name: 'org_domain', keys: { org_id: 1, domain: 1 }, unique: true }],
  sso_verified_domains: [
    { name: 'domain', keys: { domain: 1 }, unique: true },
    { name: 'org', keys: { org_id: 1 } },
  ],
};

/**
 * Typed store for SSO connections, their domain claims and verified domains. Tenant methods take
 * the org first; `unsafeVerifiedOrgForDomain` is cross-tenant by design (discover and social
 * sign-in must find the org that verified an e-mail's domain before anyone is signed in).
 */
export class SsoStore {
  private readonly connections: Collection<SsoConnectionDoc>;
  private readonly claimsOf: Collection<SsoDomainClaimDoc>;
  private readonly verified: Collection<SsoVerifiedDomainDoc>;
  constructor(store: Store) {
    this.connections = store.collection<SsoConnectionDoc>('sso_connections');
    this.claimsOf = store.collection<SsoDomainClaimDoc>('sso_domain_claims');
    this.verified = store.collection<SsoVerifiedDomainDoc>('sso_verified_domains');
  }

  get(orgId: string): Promise<SsoConnectionDoc | null> {
    return this.connections.findOne({ org_id: orgId });
  }

  /** Inserts; ConflictError when the org already has a connection. */
  async insert(doc: SsoConnectionDoc): Promise<SsoConnectionDoc> {
    return this.connections.insertOne(doc);
  }

  update(orgId: string, changes: Partial<SsoConnectionDoc>): Promise<SsoConnectionDoc | null> {
    return this.connections.findOneAndUpdate({ org_id: orgId }, { $set: changes }, { returnDocument: 'after' });
  }

  /** Deletes the connection with its claims and verified domains. */
  async remove(orgId: string): Promise<boolean> {
    await this.claimsOf.deleteMany({ org_id: orgId });
    await this.verified.deleteMany({ org_id: orgId });
    return (await this.connections.deleteOne({ org_id: orgId })) > 0;
  }

  /**
   * Makes `domains` the org's claimed set: claims the missing ones with `mint(domain)`'s token
   * (a concurrent identical claim is kept), drops the others together with their verification.
   * Returns the org's claims afterwards.
   */
  async syncClaims(orgId: string, domains: readonly string[], mint: (domain: string) => SsoDomainClaimDoc): Promise<SsoDomainClaimDoc[]> {
    const held = new Set((await this.claimsOf.find({ org_id: orgId })).map((c) => c.domain));
    for (const domain of domains) {
      if (held.has(domain)) continue;
      try {
        await this.claimsOf.insertOne(mint(domain));
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    const keep = new Set(domains);
    const dropped = [...held].filter((d) => !keep.has(d));
    if (dropped.length > 0) {
      await this.claimsOf.deleteMany({ org_id: orgId, domain: { $in: dropped } });
      await this.verified.deleteMany({ org_id: orgId, domain: { $in: dropped } });
    }
    return this.claims(orgId);
  }

  /** The org's claims, by domain. */
  claims(orgId: string): Promise<SsoDomainClaimDoc[]> {
    return this.claimsOf.find({ org_id: orgId }, { sort: { domain: 1 } });
  }

  /** The org's claim on `domain`, or null. */
  claim(orgId: string, domain: string): Promise<SsoDomainClaimDoc | null> {
    return this.claimsOf.findOne({ org_id: orgId, domain });
  }

  /** The domains the org holds verified. */
  verifiedFor(orgId: string): Promise<SsoVerifiedDomainDoc[]> {
    return this.verified.find({ org_id: orgId }, { sort: { domain: 1 } });
  }

  /** Records a verification; ConflictError when any org (another, or this one) already holds the domain. */
  async markVerified(doc: SsoVerifiedDomainDoc): Promise<SsoVerifiedDomainDoc> {
    return this.verified.insertOne(doc);
  }

  /** Which org holds `domain` (lower-cased) verified, or null. Cross-tenant: pre-authentication lookup. */
  async unsafeVerifiedOrgForDomain(domain: string): Promise<string | null> {
    return (await this.verified.findOne({ domain: domain.toLowerCase() }))?.org_id ?? null;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    /** Org SSO connections and their claimed e-mail domains. */
    readonly sso: SsoStore;
  }
}
