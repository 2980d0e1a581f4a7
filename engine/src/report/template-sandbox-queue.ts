import { TooManyRequestsError } from '../errors';

/**
 * Fair admission for the template sandbox (issue 14: one org's template renders must not stall
 * another org's reports). Pure bookkeeping, no threads: template-sandbox.ts asks it which job
 * to run next whenever a worker is free.
 */

/** Sandbox capacity (config `templates`, server/src/config/config.ts). */
export interface SandboxLimits {
  /** Worker threads rendering at once, across all orgs. */
  readonly poolSize: number;
  /** Renders one org may have running at once (its other jobs wait in its queue). */
  readonly maxConcurrentPerOrg: number;
  /** Jobs one org may have waiting; one more answers 429. */
  readonly maxQueuedPerOrg: number;
  /** Jobs waiting across all orgs; one more answers 429. */
  readonly maxQueued: number;
}

export const TEMPLATE_SANDBOX_DEFAULTS: SandboxLimits = { poolSize: 2, maxConcurrentPerOrg: 1, maxQueuedPerOrg: 4, maxQueued: 64 };

interface OrgLane<T> {
  running: number;
  readonly waiting: T[];
}

/**
 * Per-org queues served round-robin. An org never has more than `maxConcurrentPerOrg` jobs
 * running, so with `poolSize` above that, another org's job always finds a free worker or is
 * next in line; each org's waiting jobs are bounded so one org cannot fill the queue for all.
 */
export class FairQueue<T> {
  /** Lanes in service order: an org served moves to the back (Map keeps insertion order). */
  private readonly lanes = new Map<string, OrgLane<T>>();
  private waiting = 0;

  constructor(private limits: SandboxLimits, private readonly retryAfterSeconds: number) {}

  setLimits(limits: SandboxLimits): void {
    this.limits = limits;
  }

  get poolSize(): number {
    return this.limits.poolSize;
  }

  /**
   * Queues `job` for `orgId`. Throws TooManyRequestsError (429, Retry-After: the time one render
   * may take) when the org's queue or the whole queue is full.
   */
  enqueue(orgId: string, job: T): void {
    const lane = this.lanes.get(orgId) ?? { running: 0, waiting: [] };
    if (lane.waiting.length >= this.limits.maxQueuedPerOrg || this.waiting >= this.limits.maxQueued) {
      throw new TooManyRequestsError('Too many template renders queued; retry later', this.retryAfterSeconds);
    }
    lane.waiting.push(job);
    this.waiting += 1;
    this.lanes.set(orgId, lane);
  }

  /** The next job to start (its org under its concurrency cap), counted as running; null when none may start. */
  take(): { orgId: string; job: T } | null {
    for (const [orgId, lane] of this.lanes) {
      if (lane.waiting.length === 0 || lane.running >= this.limits.maxConcurrentPerOrg) continue;
      const job = lane.waiting.shift() as T;
      this.waiting -= 1;
      lane.running += 1;
      this.lanes.delete(orgId);
      this.lanes.set(orgId, lane);
      return { orgId, job };
    }
    return null;
  }

  /** A job of `orgId` taken earlier has finished. */
  done(orgId: string): void {
    const lane = this.lanes.get(orgId);
    if (!lane) return;
    lane.running -= 1;
    if (lane.running <= 0 && lane.waiting.length === 0) this.lanes.delete(orgId);
  }
}
