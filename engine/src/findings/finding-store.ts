import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { Confidence, Severity } from '../core/payload';
import { ConflictError, insertedUnlessConflict } from '../core/errors';
import { CounterDocs, type Counts } from '../store/counters';
import { addContribution, changeDeltas, contribution, expiredDayPaths, hourCounterId, hourKey, hoursAfter, nextUtcHour, oldestDayKey } from './finding-counts';

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

/**
 * The fields of a finding the API returns, in the API's order (analysis-api.md "Finding
 * record"): presentFinding's keys, and the tail of every stored record (newFindingDoc).
 */
export const FINDING_API_FIELDS = [
  'resource_hash',
  'rule_id',
  'resource_address',
  'severity',
  'title',
  'status',
  'first_seen',
  'last_seen',
  'occurrence_count',
  'note',
  'updated_by',
  'updated_at',
] as const;

export const FINDING_INDEXES: Record<string, IndexSpec[]> = {
  findings: [
    { name: 'org_resource_rule', keys: { org_id: 1, resource_hash: 1, rule_id: 1 }, unique: true },
    // The list order (last_seen desc, then resource_hash, rule_id) in full after each filter the
    // list offers (none, status, severity, rule_id), so a page is read in index order and stops
    // after `limit` rows instead of sorting the org's records, and skipped rows (offset) cost
    // index steps only.
    { name: 'org_status_last_seen', keys: { org_id: 1, status: 1, last_seen: -1, resource_hash: 1, rule_id: 1 } },
    { name: 'org_last_seen', keys: { org_id: 1, last_seen: -1, resource_hash: 1, rule_id: 1 } },
    { name: 'org_severity_last_seen', keys: { org_id: 1, severity: 1, last_seen: -1, resource_hash: 1, rule_id: 1 } },
    { name: 'org_rule_last_seen', keys: { org_id: 1, rule_id: 1, last_seen: -1, resource_hash: 1 } },
    // Status and severity together (the riskiest-namespaces ranking, finding-namespaces.ts): its
    // pages skip their offset in index steps, never reading the records before it.
    { name: 'org_status_severity_last_seen', keys: { org_id: 1, status: 1, severity: 1, last_seen: -1, resource_hash: 1, rule_id: 1 } },
    // The summary's partial first day (finding-service.ts findingsSummary): a range count, never a pass over the org.
    { name: 'org_first_seen', keys: { org_id: 1, first_seen: 1 } },
    { name: 'org_status_updated', keys: { org_id: 1, status: 1, updated_at: 1 } },
  ],
  // One counter document per org (finding-counts.ts), `_id` = the org id.
  finding_counters: [{ name: 'org', keys: { org_id: 1 } }],
};

/** Records read per page when a counter is rebuilt from the rows. */
const RECOUNT_PAGE = 2_000;

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

/**
 * A new triage record in its stored layout: `_id` (added by the store), then the two fields the
 * API never returns (`org_id`, `confidence`), then FINDING_API_FIELDS in order. Later writes
 * only set keys the record already has, which keep their place, so the stored JSON text ends
 * with the API object's fields as GET /findings returns them (finding-view.ts serves that tail).
 */
export function newFindingDoc(orgId: string, o: FindingObservation, now: string): FindingDoc {
  return {
    org_id: orgId,
    confidence: o.confidence,
    resource_hash: o.resource_hash,
    rule_id: o.rule_id,
    resource_address: o.resource_address,
    severity: o.severity,
    title: o.title,
    status: o.initialStatus,
    first_seen: now,
    last_seen: now,
    occurrence_count: 1,
    note: null,
    updated_by: null,
    updated_at: null,
  };
}

export interface FindingListFilter {
  status?: FindingStatus;
  severity?: Severity;
  rule_id?: string;
  /** Restricts to these resources (the namespace filter). */
  resource_hashes?: readonly string[];
}

/** Typed store for triage records. Every method takes the org first. */
export class FindingStore {
  private readonly findings: Collection<FindingDoc>;
  private readonly counters: CounterDocs;

  constructor(store: Store) {
    this.findings = store.collection<FindingDoc>('findings');
    this.counters = new CounterDocs(store, 'finding_counters');
  }

  /**
   * Records one observation: a new pair gets a record with `initialStatus`; an existing one has
   * only `last_seen` and `occurrence_count` refreshed (a set status is never reset).
   * Returns whether the record was created.
   */
  async observe(orgId: string, o: FindingObservation, now: string): Promise<{ created: boolean }> {
    // Refresh, else insert in the stored layout (newFindingDoc; an upsert would put the filter's
    // fields first). A concurrent insert of the same pair loses on the unique index and refreshes.
    const key = { org_id: orgId, resource_hash: o.resource_hash, rule_id: o.rule_id };
    const refresh = { $set: { last_seen: now }, $inc: { occurrence_count: 1 } };
    // A refresh changes nothing the counters count; an insert is tracked (store/counters.ts).
    if ((await this.findings.updateOne(key, refresh)).matched > 0) return { created: false };
    const doc = newFindingDoc(orgId, o, now);
    const insert = async () => {
      try {
        await this.findings.insertOne(doc);
        return { created: true };
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        await this.findings.updateOne(key, refresh);
        return { created: false };
      }
    };
    const hourId = hourCounterId(orgId, doc.first_seen);
    const deltas = [
      { id: orgId, deltas: contribution(doc) },
      { id: hourId, deltas: { [`n.${hourKey(doc.first_seen)}`]: 1 } },
    ];
    return this.counters.track(orgId, [orgId, hourId], insert, (r) => (r.created ? deltas : []));
  }

  /**
   * Records the observations of one analysis, as `observe` does each (a pair seen twice in
   * `observations` is recorded once), in a few writes whatever their number: per resource one
   * read of the pairs that exist and one refresh of them all, then every new record inserted at
   * once under a single counter announcement (store/counters.ts), the summed deltas added once.
   * A concurrent insert of one of the new pairs fails the whole insert (all or none), and those
   * pairs are then recorded one by one (`observe`: the loser refreshes). Returns the records
   * created in their stored layout (newFindingDoc, no `_id`), by resource in the order of
   * `observations`.
   */
  async observeMany(orgId: string, observations: readonly FindingObservation[], now: string): Promise<FindingDoc[]> {
    const byResource = new Map<string, Map<string, FindingObservation>>();
    for (const o of observations) {
      const rules = byResource.get(o.resource_hash) ?? new Map<string, FindingObservation>();
      byResource.set(o.resource_hash, rules);
      if (!rules.has(o.rule_id)) rules.set(o.rule_id, o);
    }
    const fresh: FindingObservation[] = [];
    for (const [resourceHash, rules] of byResource) {
      const key = { org_id: orgId, resource_hash: resourceHash };
      const existing = new Set((await this.findings.distinct('rule_id', { ...key, rule_id: { $in: [...rules.keys()] } })) as string[]);
      const refresh = { $set: { last_seen: now }, $inc: { occurrence_count: 1 } };
      if (existing.size > 0) await this.findings.updateMany({ ...key, rule_id: { $in: [...existing] } }, refresh);
      for (const [ruleId, o] of rules) if (!existing.has(ruleId)) fresh.push(o);
    }
    if (fresh.length === 0) return [];
    const docs = fresh.map((o) => newFindingDoc(orgId, o, now));
    const hourId = hourCounterId(orgId, now);
    const deltas = [...docs.map((d) => ({ id: orgId, deltas: contribution(d) })), { id: hourId, deltas: { [`n.${hourKey(now)}`]: docs.length } }];
    const insertAll = () => insertedUnlessConflict(() => this.findings.insertMany(docs));
    if (await this.counters.track(orgId, [orgId, hourId], insertAll, (inserted) => (inserted ? deltas : []))) return docs;
    // Outside the announcement above: `observe` announces its own write.
    const created: FindingDoc[] = [];
    for (const [i, o] of fresh.entries()) if ((await this.observe(orgId, o, now)).created) created.push(docs[i]);
    return created;
  }

  /**
   * A run that saw these findings again without analysing their unit (its stored analysis was
   * current): `last_seen` becomes `now` and `occurrence_count` grows by one, for the records of
   * `resourceHash` and `ruleIds` last seen before `since` (the run's start: a resumed run that
   * walks a unit again, or one it analysed itself, does not count it twice). Status untouched
   * (analysis-api.md "Finding record"). Returns how many records moved.
   */
  async refreshSeen(orgId: string, resourceHash: string, ruleIds: readonly string[], since: string, now: string): Promise<number> {
    if (ruleIds.length === 0) return 0;
    const filter = { org_id: orgId, resource_hash: resourceHash, rule_id: { $in: ruleIds }, last_seen: { $lt: since } };
    return (await this.findings.updateMany(filter, { $set: { last_seen: now }, $inc: { occurrence_count: 1 } })).matched;
  }

  get(orgId: string, resourceHash: string, ruleId: string): Promise<FindingDoc | null> {
    return this.findings.findOne({ org_id: orgId, resource_hash: resourceHash, rule_id: ruleId });
  }

  /** Every record of the given resources (for reports). */
  forResources(orgId: string, hashes: readonly string[]): Promise<FindingDoc[]> {
    return this.findings.find({ org_id: orgId, resource_hash: { $in: hashes } });
  }

  /** Newest `last_seen` first (FINDING_LIST_SORT), filtered; a page of `limit` after `offset`. */
  list(orgId: string, filter: FindingListFilter, page: { limit: number; offset: number }): Promise<FindingDoc[]> {
    return this.findings.find(listQuery(orgId, filter), { sort: FINDING_LIST_SORT, skip: page.offset, limit: page.limit });
  }

  /**
   * The same page as `list`, each record as its stored JSON text (Collection.findRawJson: no
   * parse on sqlite), for GET /findings to serve without a parse/stringify round trip.
   */
  listRawJson(orgId: string, filter: FindingListFilter, page: { limit: number; offset: number }): Promise<string[]> {
    return this.findings.findRawJson(listQuery(orgId, filter), { sort: FINDING_LIST_SORT, skip: page.offset, limit: page.limit });
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
    // The record before the update, atomically with it: the counters' deltas are after minus before.
    const key = { org_id: orgId, resource_hash: resourceHash, rule_id: ruleId };
    const before = await this.counters.track(
      orgId,
      [orgId],
      () => this.findings.findOneAndUpdate(key, { $set: changes }, { returnDocument: 'before' }),
      (b) => (b ? [{ id: orgId, deltas: changeDeltas(b, { ...b, ...changes }) }] : []),
    );
    return before ? { ...before, ...changes } : null;
  }

  /**
   * The org's summary counts (finding-counts.ts: `s`, `n`, `r`), from its counter document;
   * rebuilt from the records when missing or invalidated. `now` bounds the day buckets kept.
   */
  async summaryCounts(orgId: string, now: Date): Promise<Counts> {
    const oldest = oldestDayKey(now);
    const counts = await this.counters.read(orgId, orgId, () => this.recount(orgId, oldest), now);
    const expired = expiredDayPaths(counts, oldest);
    if (expired.length > 0) await this.counters.unset(orgId, expired);
    return counts;
  }

  /**
   * Records first seen in [`from`, the end of its UTC day): the whole hours after `from`'s hour
   * from that day's hour counter (finding-counts.ts; rebuilt by one range count per hour when
   * missing), the rest of `from`'s hour by a range count. `now` dates the rebuild's stale test.
   */
  async newSinceInDay(orgId: string, from: string, now: Date): Promise<number> {
    const dayStart = Date.parse(`${from.slice(0, 10)}T00:00:00.000Z`);
    const recount = async (): Promise<Counts> => {
      const hours: Counts = {};
      for (let h = 0; h < 24; h += 1) {
        const start = new Date(dayStart + h * 3_600_000).toISOString();
        const n = await this.count(orgId, { first_seen: { $gte: start, $lt: nextUtcHour(start) } });
        if (n > 0) hours[hourKey(start)] = n;
      }
      return { n: hours };
    };
    const [hours, firstHour] = await Promise.all([
      this.counters.read(orgId, hourCounterId(orgId, from), recount, now),
      this.count(orgId, { first_seen: { $gte: from, $lt: nextUtcHour(from) } }),
    ]);
    return firstHour + hoursAfter(hours, from);
  }

  /**
   * Makes every org's counters rebuild from the records at their next read: for a write that
   * bypasses this store (the retention sweep deletes records platform-wide). Returns how many.
   */
  invalidateCounts(): Promise<number> {
    return this.counters.invalidate();
  }

  /**
   * Every record of the org, counted (finding-counts.ts addContribution), in pages in the
   * order of the unique index (resource_hash, rule_id); a page's last resource is read whole.
   */
  private async recount(orgId: string, oldestDay: string): Promise<Counts> {
    const counts: Counts = {};
    let after = '';
    for (;;) {
      const page = await this.findings.find({ org_id: orgId, resource_hash: { $gt: after } }, { sort: { resource_hash: 1, rule_id: 1 }, limit: RECOUNT_PAGE });
      if (page.length === 0) return counts;
      after = page[page.length - 1].resource_hash;
      const whole =
        page.length < RECOUNT_PAGE
          ? page
          : [...page.filter((f) => f.resource_hash !== after), ...(await this.findings.find({ org_id: orgId, resource_hash: after }))];
      for (const f of whole) addContribution(counts, f, oldestDay);
    }
  }
}

function listQuery(orgId: string, filter: FindingListFilter): Filter {
  const query: Filter = { org_id: orgId };
  if (filter.status) query.status = filter.status;
  if (filter.severity) query.severity = filter.severity;
  if (filter.rule_id) query.rule_id = filter.rule_id;
  if (filter.resource_hashes) query.resource_hash = { $in: filter.resource_hashes };
  return query;
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly findings: FindingStore;
  }
}
