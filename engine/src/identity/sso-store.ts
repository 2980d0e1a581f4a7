import { ConflictError } from '../errors';
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

/** One claimed e-mail domain: unique across orgs (a domain is claimable by one org only). */
interface SsoDomainDoc {
  _id?: string;
  domain: string;
  org_id: string;
}

export const SSO_INDEXES: Record<string, IndexSpec[]> = {
  sso_connections: [{ name: 'org', keys: { org_id: 1 }, unique: true }],
  sso_domains: [{ name: 'domain', keys: { domain: 1 }, unique: true }, { name: 'org', keys: { org_id: 1 } }],
};

/**
 * Typed store for SSO connections and their claimed domains. Tenant methods take the org first;
 * `unsafeOrgForDomain` is cross-tenant by design (discover and social sign-in must find the org
 * that claimed an e-mail's domain before anyone is signed in).
 */
export class SsoStore {
  private readonly connections: Collection<SsoConnectionDoc>;
  private readonly domains: Collection<SsoDomainDoc>;
  constructor(store: Store) {
    this.connections = store.collection<SsoConnectionDoc>('sso_connections');
    this.domains = store.collection<SsoDomainDoc>('sso_domains');
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

  /** Deletes the connection and releases its domains. */
  async remove(orgId: string): Promise<boolean> {
    await this.domains.deleteMany({ org_id: orgId });
    return (await this.connections.deleteOne({ org_id: orgId })) > 0;
  }

  /**
   * Makes `domains` the org's claimed set: releases the others, claims the new ones atomically
   * (unique index). ConflictError naming the domain when another org holds one; the claims made
   * by this call are then released again, so nothing is half-written.
   */
  async claimDomains(orgId: string, domains: readonly string[]): Promise<void> {
    const held = new Set((await this.domains.find({ org_id: orgId })).map((d) => d.domain));
    const added: string[] = [];
    for (const domain of domains) {
      if (held.has(domain)) continue;
      try {
        await this.domains.insertOne({ domain, org_id: orgId });
        added.push(domain);
      } catch (error) {
        if (added.length > 0) await this.domains.deleteMany({ org_id: orgId, domain: { $in: added } });
        if (error instanceof ConflictError) throw new ConflictError(`The domain ${domain} is claimed by another organization's SSO connection`);
        throw error;
      }
    }
    const keep = new Set(domains);
    const released = [...held].filter((d) => !keep.has(d));
    if (released.length > 0) await this.domains.deleteMany({ org_id: orgId, domain: { $in: released } });
  }

  /** The org that claimed `domain` (lower-cased), or null. Cross-tenant: pre-authentication lookup. */
  async unsafeOrgForDomain(domain: string): Promise<string | null> {
    return (await this.domains.findOne({ domain: domain.toLowerCase() }))?.org_id ?? null;
  }
}
