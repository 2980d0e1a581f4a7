import type { Collection, IndexSpec, Store } from '../store/port';

/**
 * A public report link (analysis-api.md "Reports and report links"): only the SHA-256 of the
 * token is stored. The link renders the namespace's HTML report at read time.
 */
export interface ReportLinkDoc {
  _id?: string;
  /** Public id of the link (for listing and revocation); never derived from the token. Absent on links minted before it existed. */
  link_id?: string;
  org_id: string;
  token_sha256: string;
  namespace: string;
  template_id: string | null;
  include_suppressed: boolean;
  created_at: string;
  expires_at: string;
  /** Who minted it: the actor's e-mail, user id or key id; null for integrations (run tasks, pull requests). */
  created_by?: string | null;
}

export const REPORT_LINK_INDEXES: Record<string, IndexSpec[]> = {
  report_links: [
    { name: 'token', keys: { token_sha256: 1 }, unique: true },
    { name: 'org_expires', keys: { org_id: 1, expires_at: 1 } },
    // Expired links are swept by the adapter; reads also compare expires_at, so sweep lag never matters.
    { name: 'expires', keys: { expires_at: 1 }, expireAfterSeconds: 1 },
  ],
};

/** Typed store for report links. */
export class ReportLinkStore {
  private readonly links: Collection<ReportLinkDoc>;
  constructor(store: Store) {
    this.links = store.collection<ReportLinkDoc>('report_links');
  }

  insert(doc: ReportLinkDoc): Promise<ReportLinkDoc> {
    return this.links.insertOne(doc);
  }

  /** The org's links still valid at `nowIso`, newest first (at most `limit`). */
  listLive(orgId: string, nowIso: string, limit: number): Promise<ReportLinkDoc[]> {
    return this.links.find({ org_id: orgId, expires_at: { $gt: nowIso } }, { sort: { created_at: -1 }, limit });
  }

  /** One of the org's links by its link id (or, for links minted before link ids, its storage id); null if absent. */
  async get(orgId: string, linkId: string): Promise<ReportLinkDoc | null> {
    return (await this.links.findOne({ org_id: orgId, link_id: linkId })) ?? this.links.findOne({ org_id: orgId, _id: linkId });
  }

  /** Deletes one link by storage id within the org; returns whether it existed. */
  async remove(orgId: string, storageId: string): Promise<boolean> {
    return (await this.links.deleteOne({ org_id: orgId, _id: storageId })) > 0;
  }

  /**
   * Unsafe (cross-tenant): a public link is resolved before its org is known; the token's
   * hash is the only key, and the caller renders with the org the row names.
   */
  unsafeByTokenHash(tokenSha256: string): Promise<ReportLinkDoc | null> {
    return this.links.findOne({ token_sha256: tokenSha256 });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly reportLinks: ReportLinkStore;
  }
}
