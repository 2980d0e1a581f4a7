import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { Confidence, Severity } from '../analysis/payload';

/** analysis-api.md "Finding status". */
export type FindingStatus = 'open' | 'needs_review' | 'acknowledged' | 'suppressed' | 'false_positive';
export const FINDING_STATUSES: readonly FindingStatus[] = ['open', 'needs_review', 'acknowledged', 'suppressed', 'false_positive'];

/** analysis-api.md "Finding record": one triage record per (org, resource_hash, rule_id). */
export interface FindingDoc {
  _id?: string;
  org_id: string;
  resource_hash: string;
  rule_id: string;
  resource_address: string;
  severity: Severity;
  title: string;
  confidence: Confidence;
  status: FindingStatus;
  first_seen: string;
  last_seen: string;
  occurrence_count: number;
  note: string | null;
  updated_by: string | null;
  updated_at: string | null;
}

export const FINDING_INDEXES: Record<string, IndexSpec[]> = {
  findings: [
    { name: 'org_resource_rule', keys: { org_id: 1, resource_hash: 1, rule_id: 1 }, unique: true },
    // The list order (last_seen desc, then resource_hash, rule_id) in full, so a page is read in
    // index order and stops after `limit` rows instead of sorting the org's records.
    { name: 'org_status_last_seen', keys: { org_id: 1, status: 1, last_seen: -1, resource_hash: 1, rule_id: 1 } },
    { name: 'org_last_seen', keys: { org_id: 1, last_seen: -1, resource_hash: 1, rule_id: 1 } },
  ],
};

/** GET /findings order: newest `last_seen` first, then the record key (a stable page order). */
export const FINDING_LIST_SORT = { last_seen: -1, resource_hash: 1, rule_id: 1 } as const;

export interface FindingObservation {
  resource_hash: string;
  rule_id: string;
  resource_address: string;
  severity: Severity;
  title: string;
  confidence: Confidence;
  /** Status for a new record (open, or needs_review). */
  initialStatus: FindingStatus;
}

/** Typed store for triage records. Every method takes the org first. */
export class FindingStore {
  private readonly findings: Collection<FindingDoc>;

  constructor(store: Store) {
    this.findings = store.collection<FindingDoc>('findings');
  }

  /**
   * Records one observation: a new pair gets a record with `initialStatus`; an existing one has
   * only `last_seen` and `occurrence_count` refreshed (a set status is never reset).
   * Returns whether the record was created.
   */
  async observe(orgId: string, o: FindingObservation, now: string): Promise<{ created: boolean }> {
    const result = await this.findings.updateOne(
      { org_id: orgId, resource_hash: o.resource_hash, rule_id: o.rule_id },
      {
        $setOnInsert: {
          resource_address: o.resource_address,
          severity: o.severity,
          title: o.title,
          confidence: o.confidence,
          status: o.initialStatus,
          first_seen: now,
          note: null,
          updated_by: null,
          updated_at: null,
        },
        $set: { last_seen: now },
        $inc: { occurrence_count: 1 },
      },
      { upsert: true },
    );
    return { created: result.upserted };
  }

  get(orgId: string, resourceHash: string, ruleId: string): Promise<FindingDoc | null> {
    return this.findings.findOne({ org_id: orgId, resource_hash: resourceHash, rule_id: ruleId });
  }

  /** Every record of the given resources (for reports). */
  forResources(orgId: string, hashes: readonly string[]): Promise<FindingDoc[]> {
    return this.findings.find({ org_id: orgId, resource_hash: { $in: hashes } });
  }

  /** Newest `last_seen` first; `resource_hashes` restricts to those resources (the namespace filter). */
  list(
    orgId: string,
    filter: { status?: FindingStatus; severity?: Severity; rule_id?: string; resource_hashes?: readonly string[] },
    page: { limit: number; offset: number },
  ): Promise<FindingDoc[]> {
    const query: Filter = { org_id: orgId };
    if (filter.status) query.status = filter.status;
    if (filter.severity) query.severity = filter.severity;
    if (filter.rule_id) query.rule_id = filter.rule_id;
    if (filter.resource_hashes) query.resource_hash = { $in: filter.resource_hashes };
    return this.findings.find(query, { sort: FINDING_LIST_SORT, skip: page.offset, limit: page.limit });
  }

  count(orgId: string, filter: Filter = {}): Promise<number> {
    return this.findings.count({ ...filter, org_id: orgId });
  }

  async update(
    orgId: string,
    resourceHash: string,
    ruleId: string,
    changes: Partial<Pick<FindingDoc, 'status' | 'note' | 'updated_by' | 'updated_at'>>,
  ): Promise<FindingDoc | null> {
    return this.findings.findOneAndUpdate(
      { org_id: orgId, resource_hash: resourceHash, rule_id: ruleId },
      { $set: changes },
      { returnDocument: 'after' },
    );
  }
}
