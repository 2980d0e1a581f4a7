import { CounterDocs, type Counts } from '../store/counters';
import type { Collection, IndexSpec, Store } from '../store/port';

/** One metered LLM call (a usage event): tokens and cost priced from the catalogue at call time. */
export interface LlmCallDoc {
  _id?: string;
  org_id: string;
  job_id: string | null;
  resource_hash: string;
  llm_backend: string;
  model: string;
  attempt: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  duration_ms: number;
  error: string | null;
  created_at: string;
  /**
   * `<job_id>:<resource_hash>:<attempt>` for calls of a job's unit: metering the same call twice
   * (a resumed or doubly-run job) stores it once. Absent on calls recorded without one.
   */
  idempotency_key?: string;
}

export const LLM_CALL_INDEXES: Record<string, IndexSpec[]> = {
  llm_calls: [
    { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
    { name: 'org_job', keys: { org_id: 1, job_id: 1 } },
    { name: 'org_idempotency', keys: { org_id: 1, idempotency_key: 1 } },
  ],
  // One counter document per org and UTC month (monthTotals), `_id` = `<org_id>:<YYYY-MM>`.
  usage_counters: [{ name: 'org', keys: { org_id: 1 } }],
};

/** A UTC month's usage of an org: cost (USD, unrounded), usage events, successful calls. */
export interface MonthTotals {
  cost_usd: number;
  events: number;
  resources: number;
}

type NewCall = Omit<LlmCallDoc, '_id' | 'org_id'>;

/** Calls read per page when a month's counter is rebuilt from the calls. */
const RECOUNT_PAGE = 2_000;

/** `YYYY-MM` of an ISO timestamp (the usage document's period). */
const periodOf = (iso: string) => iso.slice(0, 7);
const counterId = (orgId: string, period: string) => `${orgId}:${period}`;

/** What stored calls add to their months' counters (docs/decisions.md "Aggregate counters"). */
function callDeltas(orgId: string, stored: readonly NewCall[]) {
  const byMonth = new Map<string, { cost_usd: number; events: number; resources: number }>();
  for (const c of stored) {
    const id = counterId(orgId, periodOf(c.created_at));
    const t = byMonth.get(id) ?? { cost_usd: 0, events: 0, resources: 0 };
    t.cost_usd += c.cost_usd;
    t.events += 1;
    t.resources += c.error === null ? 1 : 0;
    byMonth.set(id, t);
  }
  return [...byMonth].map(([id, deltas]) => ({ id, deltas }));
}

/** Typed store for usage events. Every method takes the org first. */
export class LlmCallStore {
  private readonly calls: Collection<LlmCallDoc>;
  private readonly counters: CounterDocs;
  constructor(store: Store) {
    this.calls = store.collection<LlmCallDoc>('llm_calls');
    this.counters = new CounterDocs(store, 'usage_counters');
  }

  /**
   * Records usage events. A call carrying an `idempotency_key` is stored only if no call of the
   * org holds that key yet (an atomic upsert with $setOnInsert); the others are inserted as is.
   * Returns how many calls were stored.
   */
  async record(orgId: string, calls: readonly NewCall[]): Promise<number> {
    const months = calls.map((c) => counterId(orgId, periodOf(c.created_at)));
    const stored = await this.counters.track(
      orgId,
      months,
      () => this.insertCalls(orgId, calls),
      (s) => callDeltas(orgId, s),
    );
    return stored.length;
  }

  /** record's writes; returns the calls stored. */
  private async insertCalls(orgId: string, calls: readonly NewCall[]): Promise<NewCall[]> {
    const plain = calls.filter((c) => c.idempotency_key === undefined);
    if (plain.length > 0) await this.calls.insertMany(plain.map((c) => ({ ...c, org_id: orgId })));
    const stored = [...plain];
    for (const call of calls) {
      const { idempotency_key: key, ...rest } = call;
      if (key === undefined) continue;
      // The filter's equality fields (org_id, idempotency_key) are part of the inserted document.
      const { upserted } = await this.calls.updateOne({ org_id: orgId, idempotency_key: key }, { $setOnInsert: rest }, { upsert: true });
      if (upserted) stored.push(call);
    }
    return stored;
  }

  /**
   * The org's totals of the UTC month `period` (`YYYY-MM`, [from, to) in ISO) from its counter
   * document, rebuilt from the calls of the month when missing (store/counters.ts). `now` dates
   * the rebuild's stale test.
   */
  async monthTotals(orgId: string, window: { period: string; from: string; to: string }, now: Date): Promise<MonthTotals> {
    const recount = async (): Promise<Counts> => {
      const totals = { cost_usd: 0, events: 0, resources: 0 };
      await this.eachPageBetween(orgId, window.from, window.to, (calls) => {
        for (const c of calls) {
          totals.cost_usd += c.cost_usd;
          totals.events += 1;
          totals.resources += c.error === null ? 1 : 0;
        }
      });
      return totals;
    };
    const c = await this.counters.read(orgId, counterId(orgId, window.period), recount, now);
    const n = (v: Counts[string] | undefined) => (typeof v === 'number' ? v : 0);
    return { cost_usd: n(c.cost_usd), events: n(c.events), resources: n(c.resources) };
  }

  /** The calls metered for one unit of one job, in attempt order. */
  forUnit(orgId: string, jobId: string, resourceHash: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, job_id: jobId, resource_hash: resourceHash }, { sort: { attempt: 1 } });
  }

  forJob(orgId: string, jobId: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, job_id: jobId }, { sort: { created_at: 1 } });
  }

  /**
   * The calls made in [from, to), RECOUNT_PAGE at a time in `created_at` order (a page's last
   * instant is read whole), so a month of a large org is never one read holding the event loop.
   */
  private async eachPageBetween(orgId: string, from: string, to: string, visit: (calls: readonly LlmCallDoc[]) => void): Promise<void> {
    let range: Record<string, string> = { $gte: from, $lt: to };
    for (;;) {
      const page = await this.calls.find({ org_id: orgId, created_at: range }, { sort: { created_at: 1 }, limit: RECOUNT_PAGE });
      if (page.length < RECOUNT_PAGE) return visit(page);
      const last = page[page.length - 1].created_at;
      visit(page.filter((c) => c.created_at !== last));
      visit(await this.calls.find({ org_id: orgId, created_at: last }));
      range = { $gt: last, $lt: to };
    }
  }

  /** Calls made in [from, to) (ISO timestamps). */
  between(orgId: string, from: string, to: string): Promise<LlmCallDoc[]> {
    return this.calls.find({ org_id: orgId, created_at: { $gte: from, $lt: to } });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly llmCalls: LlmCallStore;
  }
}
