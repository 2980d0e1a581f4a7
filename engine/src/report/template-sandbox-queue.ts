import { TooManyRequestsError } from '../core/errors';

/**
 * Fair admission for the template sandbox (one tenant's template renders must not stall
 * another's reports). Pure bookkeeping, no threads: template-sandbox.ts asks it which job
 * to run next whenever a worker is free. Jobs queue in lanes; a lane is whoever is responsible
 * for a render: an account, not an org (template-sandbox-lane.ts), since orgs are free to
 * create and a lane per org would let one account multiply its share.
 */

/** Sandbox capacity (config `templates`, server/src/config/config.ts). */
export interface SandboxLimits {
  /** Worker threads rendering at once, across all lanes. */
  readonly poolSize: number;
  /** Renders one lane may have running at once (its other jobs wait in its queue). */
  readonly maxConcurrentPerLane: number;
  /** Jobs one lane may have waiting; one more answers 429. */
  readonly maxQueuedPerLane: number;
  /** Jobs waiting across all lanes; one more answers 429. */
  readonly maxQueued: number;
}

export const TEMPLATE_SANDBOX_DEFAULTS: SandboxLimits = { poolSize: 2, maxConcurrentPerLane: 1, maxQueuedPerLane: 4, maxQueued: 64 };

interface Lane<T> {
  running: number;
  readonly waiting: T[];
}

/**
 * Per-lane queues served round-robin. A lane never has more than `maxConcurrentPerLane` jobs
 * running, so with `poolSize` above that, another lane's job always finds a free worker or is
 * next in line; each lane's waiting jobs are bounded so one lane cannot fill the queue for all.
 */
export class FairQueue<T> {
  /** Lanes in service order: a lane served moves to the back (Map keeps insertion order). */
  private readonly lanes = new Map<string, Lane<T>>();
  private waiting = 0;

  constructor(
    private limits: SandboxLimits,
    private readonly retryAfterSeconds: number,
  ) {}

  setLimits(limits: SandboxLimits): void {
    this.limits = limits;
  }

  get poolSize(): number {
    return this.limits.poolSize;
  }

  /**
   * Queues `job` in `lane`. Throws TooManyRequestsError (429, Retry-After: the time one render
   * may take) when the lane's queue or the whole queue is full.
   */
  enqueue(lane: string, job: T): void {
    const entry = this.lanes.get(lane) ?? { running: 0, waiting: [] };
    if (entry.waiting.length >= this.limits.maxQueuedPerLane || this.waiting >= this.limits.maxQueued) {
      throw new TooManyRequestsError('Too many template renders queued; retry later', this.retryAfterSeconds);
    }
    entry.waiting.push(job);
    this.waiting += 1;
    this.lanes.set(lane, entry);
  }

  /** The next job to start (its lane under its concurrency cap), counted as running; null when none may start. */
  take(): { lane: string; job: T } | null {
    for (const [lane, entry] of this.lanes) {
      if (entry.waiting.length === 0 || entry.running >= this.limits.maxConcurrentPerLane) continue;
      const job = entry.waiting.shift() as T;
      this.waiting -= 1;
      entry.running += 1;
      this.lanes.delete(lane);
      this.lanes.set(lane, entry);
      return { lane, job };
    }
    return null;
  }

  /** A job of `lane` taken earlier has finished. */
  done(lane: string): void {
    const entry = this.lanes.get(lane);
    if (!entry) return;
    entry.running -= 1;
    if (entry.running <= 0 && entry.waiting.length === 0) this.lanes.delete(lane);
  }
}
