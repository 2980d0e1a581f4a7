import type { Collection, IndexSpec, Store } from '../store/port';

/**
 * A public report link (analysis-api.md "Reports and report links"): only the SHA-256 of the
 * token is stored. The link renders the namespace's HTML report at read time.
 */
export interface ReportLinkDoc {
  _id?: string;
  org_id: string;
  token_sha256: string;
  namespace: string;
  template_id: string | null;
  include_suppressed: boolean;
  created_at: string;
  expires_at: string;
}

export const REPORT_LINK_INDEXES: Record<string, IndexSpec[]> = {
  report_links: [
    { name: 'token', keys: { token_sha256: 1 }, unique: true },
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

  /**
   * Unsafe (cross-tenant): a public link is resolved before its org is known; the token's
   * hash is the only key, and the caller renders with the org the row names.
   */
  unsafeByTokenHash(tokenSha256: string): Promise<ReportLinkDoc | null> {
    return this.links.findOne({ token_sha256: tokenSha256 });
  }
}
