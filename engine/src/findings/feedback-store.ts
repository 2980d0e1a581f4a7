import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { Severity } from '../core/payload';
import { CounterDocs, type Counts } from '../store/counters';
import { nextTurn } from '../ingest/timed-batches';
import { addFeedback, feedbackDelta } from './feedback-counts';

/** analysis-api.md "Feedback record" verdicts. */
export type Verdict = 'confirmed' | 'rejected' | 'severity_wrong' | 'missed' | 'unclear';
export const VERDICTS: readonly Verdict[] = ['confirmed', 'rejected', 'severity_wrong', 'missed', 'unclear'];
export type ReasonCode = 'false_positive' | 'accepted_risk' | 'fixed' | 'not_applicable_here' | 'other';
export const REASON_CODES: readonly ReasonCode[] = ['false_positive', 'accepted_risk', 'fixed', 'not_applicable_here', 'other'];
export type FeedbackSource = 'dashboard_triage' | 'codehost_command' | 'codehost_review_comment' | 'api';
export const FEEDBACK_SOURCES: readonly FeedbackSource[] = ['dashboard_triage', 'codehost_command', 'codehost_review_comment', 'api'];

/** analysis-api.md "Feedback record": one append-only reviewer decision. */
export interface FeedbackDoc {
  _id?: string;
  org_id: string;
  feedback_id: string;
  resource_hash: string;
  rule_id: string;
  namespace: string | null;
  severity: Severity | null;
  verdict: Verdict;
  reason_code: ReasonCode | null;
  comment: string;
  source: FeedbackSource;
  actor: string | null;
  /** Decided at write time and never recomputed. */
  trusted: boolean;
  provenance: { provider: string | null; repo: string | null; pr_number: number | null; comment_id: string | null };
  created_at: string;
}

export interface FeedbackFilter {
  rule_id?: string;
  verdict?: Verdict;
  source?: FeedbackSource;
  resource_hash?: string;
}

export const FEEDBACK_INDEXES: Record<string, IndexSpec[]> = {
  feedback: [
    { name: 'feedback_id', keys: { feedback_id: 1 }, unique: true },
    { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
    { name: 'org_rule_created', keys: { org_id: 1, rule_id: 1, created_at: -1 } },
    // The counter rebuild's pages (recount): in index order, never a sort of the org's whole log per page.
    { name: 'org_feedback_id', keys: { org_id: 1, feedback_id: 1 } },
  ],
  // One counter document per org (feedback-counts.ts), `_id` = the org id.
  feedback_counters: [{ name: 'org', keys: { org_id: 1 } }],
};

/** Entries read per page while looking for commented entries. */
const PAGE = 2_000;
/** Entries read per page when a counter is rebuilt: a few milliseconds of reading each. */
const RECOUNT_PAGE = 500;
const NEWEST_FIRST = { created_at: -1, feedback_id: -1 } as const;

/** Typed store for the append-only feedback log. Every method takes the org first; there is no update. */
export class FeedbackStore {
  private readonly feedback: Collection<FeedbackDoc>;
  private readonly counters: CounterDocs;
  constructor(store: Store) {
    this.feedback = store.collection<FeedbackDoc>('feedback');
    this.counters = new CounterDocs(store, 'feedback_counters');
  }

  /** Appends an entry; the org's rule-health counts follow (store/counters.ts). */
  async append(doc: FeedbackDoc): Promise<FeedbackDoc> {
    const orgId = doc.org_id;
    return this.counters.track(
      orgId,
      [orgId],
      () => this.feedback.insertOne(doc),
      () => [feedbackDelta(orgId, doc)],
    );
  }

  /**
   * The org's rule-health counts (feedback-counts.ts), from its counter document; rebuilt from
   * the log when missing or invalidated. `now` dates the rebuild's stale test.
   */
  ruleCounts(orgId: string, now: Date): Promise<Counts> {
    return this.counters.read(orgId, orgId, () => this.recount(orgId), now);
  }

  /**
   * Makes every org's counters rebuild from the log at their next read: for a delete that
   * bypasses this store (the retention sweep). Returns how many.
   */
  invalidateCounts(): Promise<number> {
    return this.counters.invalidate();
  }

  /**
   * The whole log of the org, counted in pages in `feedback_id` order, a turn of the event loop
   * between pages (a rebuild reads a log of any length; a page is milliseconds).
   */
  private async recount(orgId: string): Promise<Counts> {
    const counts: Counts = {};
    let after = '';
    for (;;) {
      if (after !== '') await nextTurn();
      const page = await this.feedback.find({ org_id: orgId, feedback_id: { $gt: after } }, { sort: { feedback_id: 1 }, limit: RECOUNT_PAGE });
      for (const f of page) addFeedback(counts, f);
      if (page.length < RECOUNT_PAGE) return counts;
      after = page[page.length - 1].feedback_id;
    }
  }

  /**
   * The `limit` newest entries of a rule (trusted ones only when `trustedOnly`; of `verdict` only
   * when given) with a comment that is not blank, newest first: read by the rule's index, a page
   * at a time.
   */
  async newestCommented(orgId: string, ruleId: string, trustedOnly: boolean, limit: number, verdict?: Verdict): Promise<FeedbackDoc[]> {
    const filter: Filter = { org_id: orgId, rule_id: ruleId, comment: { $ne: '' } };
    if (trustedOnly) filter.trusted = true;
    if (verdict !== undefined) filter.verdict = verdict;
    const out: FeedbackDoc[] = [];
    // The filter skips empty comments, so the first page of `limit` answers unless one was blank
    // (the scan stops at `limit` matches, not at the rule's whole history); later pages grow.
    for (let skip = 0, size = limit; out.length < limit; skip += size, size = Math.min(PAGE, size * 4)) {
      const page = await this.feedback.find(filter, { sort: NEWEST_FIRST, skip, limit: size });
      out.push(...page.filter((f) => f.comment.trim() !== '').slice(0, limit - out.length));
      if (page.length < size) break;
    }
    return out;
  }

  /** A rule's newest entry (of the trusted ones only when `trustedOnly`), or null: read by the rule's index. */
  newest(orgId: string, ruleId: string, trustedOnly: boolean): Promise<FeedbackDoc | null> {
    const filter: Filter = { org_id: orgId, rule_id: ruleId };
    if (trustedOnly) filter.trusted = true;
    return this.feedback.findOne(filter, { sort: NEWEST_FIRST });
  }

  /** The severity of a rule's newest entry that names one (trusted ones only when `trustedOnly`), or null. */
  async newestSeverity(orgId: string, ruleId: string, trustedOnly: boolean): Promise<Severity | null> {
    const filter: Filter = { org_id: orgId, rule_id: ruleId, severity: { $ne: null } };
    if (trustedOnly) filter.trusted = true;
    return (await this.feedback.findOne(filter, { sort: NEWEST_FIRST }))?.severity ?? null;
  }

  private query(orgId: string, filter: FeedbackFilter): Filter {
    const query: Filter = { org_id: orgId };
    for (const key of ['rule_id', 'verdict', 'source', 'resource_hash'] as const) {
      if (filter[key] !== undefined) query[key] = filter[key];
    }
    return query;
  }

  /** Newest first. */
  list(orgId: string, filter: FeedbackFilter, page: { limit: number; offset: number }): Promise<FeedbackDoc[]> {
    return this.feedback.find(this.query(orgId, filter), { sort: { created_at: -1, feedback_id: -1 }, skip: page.offset, limit: page.limit });
  }

  count(orgId: string, filter: FeedbackFilter): Promise<number> {
    return this.feedback.count(this.query(orgId, filter));
  }

  /**
   * The whole log of the org, oldest first, in one read. No request reads it (rule health and
   * proposals read the counters); bench/aggregates.bench.ts times it as the baseline they avoid.
   */
  all(orgId: string): Promise<FeedbackDoc[]> {
    return this.feedback.find({ org_id: orgId }, { sort: { created_at: 1, feedback_id: 1 } });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly feedback: FeedbackStore;
  }
}
