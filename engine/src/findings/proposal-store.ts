import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { Severity } from '../core/payload';

/** analysis-api.md "Rule proposal status"; `withdrawn` is our value for "evidence no longer supports it". */
export type ProposalStatus = 'pending' | 'applied' | 'dismissed' | 'withdrawn';
export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ['pending', 'applied', 'dismissed', 'withdrawn'];

export interface ProposalChanges {
  /** Markdown appended to the rule's description on apply. */
  description_amendment?: string;
  /** New severity for the rule (one step down), when reviewers mostly said severity_wrong. */
  severity?: Severity;
}

export interface ProposalEvidence {
  confirmed: number;
  rejected: number;
  severity_wrong: number;
  unclear: number;
  total: number;
  precision: number | null;
  min_samples: number;
  /** created_at of the newest feedback entry counted. */
  feedback_through: string;
}

/** analysis-api.md "Rule proposal". */
export interface ProposalDoc {
  _id?: string;
  org_id: string;
  proposal_id: string;
  rule_id: string;
  status: ProposalStatus;
  changes: ProposalChanges;
  evidence: ProposalEvidence;
  reviewer_quotes: string[];
  created_at: string;
  updated_at: string;
  decided_at: string | null;
  decided_by: string | null;
}

export const PROPOSAL_INDEXES: Record<string, IndexSpec[]> = {
  rule_proposals: [
    { name: 'org_proposal', keys: { org_id: 1, proposal_id: 1 }, unique: true },
    { name: 'org_rule_status', keys: { org_id: 1, rule_id: 1, status: 1 } },
  ],
};

/** Typed store for rule proposals. Every method takes the org first. */
export class ProposalStore {
  private readonly proposals: Collection<ProposalDoc>;
  constructor(store: Store) {
    this.proposals = store.collection<ProposalDoc>('rule_proposals');
  }

  insert(doc: ProposalDoc): Promise<ProposalDoc> {
    return this.proposals.insertOne(doc);
  }

  get(orgId: string, proposalId: string): Promise<ProposalDoc | null> {
    return this.proposals.findOne({ org_id: orgId, proposal_id: proposalId });
  }

  list(orgId: string, status?: ProposalStatus): Promise<ProposalDoc[]> {
    const query: Filter = { org_id: orgId };
    if (status) query.status = status;
    return this.proposals.find(query, { sort: { created_at: -1, proposal_id: -1 } });
  }

  forRule(orgId: string, ruleId: string): Promise<ProposalDoc[]> {
    return this.proposals.find({ org_id: orgId, rule_id: ruleId }, { sort: { created_at: -1, proposal_id: -1 } });
  }

  /** Updates only when the proposal is still in `from` (a concurrent decision wins once). */
  transition(orgId: string, proposalId: string, from: ProposalStatus, changes: Partial<ProposalDoc>): Promise<ProposalDoc | null> {
    return this.proposals.findOneAndUpdate({ org_id: orgId, proposal_id: proposalId, status: from }, { $set: changes }, { returnDocument: 'after' });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly proposals: ProposalStore;
  }
}
