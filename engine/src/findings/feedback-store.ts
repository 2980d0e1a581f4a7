import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { Severity } from '../core/payload';

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
  ],
};

/** Typed store for the append-only feedback log. Every method takes the org first; there is no update. */
export class FeedbackStore {
  private readonly feedback: Collection<FeedbackDoc>;
  constructor(store: Store) {
    this.feedback = store.collection<FeedbackDoc>('feedback');
  }

  async append(doc: FeedbackDoc): Promise<FeedbackDoc> {
    return this.feedback.insertOne(doc);
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

  /** The whole log of the org, oldest first (rule health and proposals aggregate it). */
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
