import type { Collection, IndexSpec, Store } from '../store/port';

/** One real run of a platform sweep (identity-api.md "Platform administration": retention and jobs sweeps). */
export interface SweepResult {
  started_at: string;
  duration_ms: number;
  counts: Record<string, number>;
  error: string | null;
}

interface SweepDoc {
  _id?: string;
  sweep: string;
  /** When the last real run started; the epoch before the first. */
  last_started_at: string;
  /** A replica holds the run until then (a crashed holder's lease lapses). */
  lease_until: string;
  last: SweepResult | null;
}

export const SWEEP_INDEXES: Record<string, IndexSpec[]> = {
  platform_sweeps: [{ name: 'sweep', keys: { sweep: 1 }, unique: true }],
};

const EPOCH = '1970-01-01T00:00:00.000Z';

/**
 * The shared state of the platform sweeps, so two replicas never run one sweep at once and
 * the interval gate holds across them: `claim` is one atomic compare-and-set on the store.
 */
export class SweepStore {
  private readonly docs: Collection<SweepDoc>;
  constructor(store: Store) {
    this.docs = store.collection<SweepDoc>('platform_sweeps');
  }

  /**
   * Claims the right to run `sweep` now: true when no lease is held and (`force`, or the last
   * real run started at least `intervalMs` before `now`). The lease lasts `leaseMs`.
   */
  async claim(sweep: string, now: Date, intervalMs: number, force: boolean, leaseMs: number): Promise<boolean> {
    await this.docs.updateOne({ sweep }, { $setOnInsert: { last_started_at: EPOCH, lease_until: EPOCH, last: null } }, { upsert: true });
    const filter: Record<string, unknown> = { sweep, lease_until: { $lte: now.toISOString() } };
    if (!force) filter.last_started_at = { $lte: new Date(now.getTime() - intervalMs).toISOString() };
    const claimed = await this.docs.findOneAndUpdate(filter, { $set: { lease_until: new Date(now.getTime() + leaseMs).toISOString() } });
    return claimed !== null;
  }

  /** Records a real run's result and releases the lease. */
  async finish(sweep: string, result: SweepResult): Promise<void> {
    await this.docs.updateOne({ sweep }, { $set: { last: result, last_started_at: result.started_at, lease_until: EPOCH } });
  }

  /** The last real run's result, or null. */
  async last(sweep: string): Promise<SweepResult | null> {
    return (await this.docs.findOne({ sweep }))?.last ?? null;
  }
}

/** A sweep step: returns how many records it touched. */
export type SweepStep = (now: Date) => Promise<number>;

/**
 * Runs `steps` in order when `claim` allows (identity-api.md: "interval elapsed or
 * force=true ... otherwise returns the previous result with skipped: true"). A failing step
 * stops the run; its message becomes `error` and the counts so far are kept.
 */
export async function runSweep(
  store: SweepStore,
  sweep: string,
  steps: Record<string, SweepStep>,
  gate: { now: () => Date; intervalMs: number; force: boolean; leaseMs?: number },
): Promise<SweepResult & { skipped: boolean }> {
  const started = gate.now();
  if (!(await store.claim(sweep, started, gate.intervalMs, gate.force, gate.leaseMs ?? 15 * 60_000))) {
    const last = await store.last(sweep);
    return { ...(last ?? { started_at: started.toISOString(), duration_ms: 0, counts: {}, error: null }), skipped: true };
  }
  const t0 = process.hrtime.bigint();
  const counts: Record<string, number> = {};
  let error: string | null = null;
  for (const [name, step] of Object.entries(steps)) {
    try {
      counts[name] = await step(started);
    } catch (err) {
      error = `${name}: ${err instanceof Error ? err.message : String(err)}`;
      break;
    }
  }
  const result: SweepResult = { started_at: started.toISOString(), duration_ms: Number(process.hrtime.bigint() - t0) / 1e6, counts, error };
  await store.finish(sweep, result);
  return { ...result, skipped: false };
}
