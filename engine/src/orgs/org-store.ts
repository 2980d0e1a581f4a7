import type { Collection, IndexSpec, Store } from '../store/port';

/** identity-api.md "Organization (info)" plus the admin-view fields kept on the record. */
export interface OrgDoc {
  _id?: string;
  org_id: string;
  name: string;
  slug: string;
  plan_tier: 'free' | 'paid' | 'enterprise';
  contract: Record<string, unknown> | null;
  quota: { monthly_budget_usd: number | null };
  report_link_ttl_hours: number;
  invite_link_ttl_hours: number;
  locked: boolean;
  require_2fa: boolean;
  pending_deletion_at: string | null;
  created_at: string;
  /** When the built-in rules were imported as custom-rule rows (rules/custom-seed.ts); absent = not yet. */
  rules_seeded_at?: string | null;
  /** Analyses not counted against the demo quota (PATCH /admin/organizations/{org_id}/plan `demo_analyses_used`). */
  demo_analyses_offset?: number;
  /**
   * The account that created it (POST /orgs, registration with org_name), counted against
   * `registration.max_orgs_per_account`; absent on the default org and on older orgs.
   */
  created_by?: string | null;
}

/** Per-org analyzer switch (analysis-api.md "Analyzers and built-in rulesets"); no row = enabled. */
export interface AnalyzerSettingDoc {
  _id?: string;
  org_id: string;
  analyzer: string;
  enabled: boolean;
  updated_at: string;
}

export const ORG_INDEXES: Record<string, IndexSpec[]> = {
  orgs: [
    { name: 'org_id', keys: { org_id: 1 }, unique: true },
    { name: 'slug', keys: { slug: 1 }, unique: true },
    { name: 'created_by', keys: { created_by: 1 } },
  ],
  analyzer_settings: [{ name: 'org_analyzer', keys: { org_id: 1, analyzer: 1 }, unique: true }],
};

export const DEFAULT_ORG_ID = 'default';

/** Typed store for organizations and their analyzer switches. */
export class OrgStore {
  private readonly orgs: Collection<OrgDoc>;
  private readonly analyzerSettings: Collection<AnalyzerSettingDoc>;

  constructor(store: Store) {
    this.orgs = store.collection<OrgDoc>('orgs');
    this.analyzerSettings = store.collection<AnalyzerSettingDoc>('analyzer_settings');
  }

  get(orgId: string): Promise<OrgDoc | null> {
    return this.orgs.findOne({ org_id: orgId });
  }

  /** Unsafe (cross-tenant): every org, for the superadmin surface only (identity-api.md "Platform administration"). */
  unsafeList(): Promise<OrgDoc[]> {
    return this.orgs.find({}, { sort: { created_at: 1, org_id: 1 } });
  }

  /** Creates the org when absent (idempotent); returns the stored record. `created_by` only on creation. */
  async ensure(org: Pick<OrgDoc, 'org_id' | 'name' | 'slug' | 'created_by'>, now: string): Promise<OrgDoc> {
    await this.orgs.updateOne(
      { org_id: org.org_id },
      {
        $setOnInsert: {
          name: org.name,
          slug: org.slug,
          plan_tier: 'free',
          contract: null,
          quota: { monthly_budget_usd: null },
          report_link_ttl_hours: 24,
          invite_link_ttl_hours: 168,
          locked: false,
          require_2fa: false,
          pending_deletion_at: null,
          created_at: now,
          ...(org.created_by !== undefined ? { created_by: org.created_by } : {}),
        },
      },
      { upsert: true },
    );
    return (await this.get(org.org_id)) as OrgDoc;
  }

  /** How many orgs `userId` created that still exist (pending deletion included). */
  countCreatedBy(userId: string): Promise<number> {
    return this.orgs.count({ created_by: userId });
  }

  /**
   * Deletes the org record alone: only for an org refused right after its insert, before any
   * other row of it was written (org-service.ts createOrganization); a real org is purged.
   */
  async deleteBare(orgId: string): Promise<void> {
    await this.orgs.deleteOne({ org_id: orgId });
  }

  /** Orgs whose deletion was requested before `before` (ISO); the purge's candidates. */
  unsafePendingDeletionBefore(before: string): Promise<OrgDoc[]> {
    return this.orgs.find({ pending_deletion_at: { $lt: before } }, { sort: { pending_deletion_at: 1 } });
  }

  async update(orgId: string, changes: Partial<OrgDoc>): Promise<OrgDoc | null> {
    return this.orgs.findOneAndUpdate({ org_id: orgId }, { $set: changes }, { returnDocument: 'after' });
  }

  /** Map analyzer name → enabled flag for the org's overrides (absent = enabled). */
  async analyzerOverrides(orgId: string): Promise<Map<string, boolean>> {
    const rows = await this.analyzerSettings.find({ org_id: orgId });
    return new Map(rows.map((r) => [r.analyzer, r.enabled]));
  }

  async setAnalyzerEnabled(orgId: string, analyzer: string, enabled: boolean, now: string): Promise<void> {
    await this.analyzerSettings.updateOne({ org_id: orgId, analyzer }, { $set: { enabled, updated_at: now } }, { upsert: true });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly orgs: OrgStore;
  }
}
