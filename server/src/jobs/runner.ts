import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { JobDoc } from '@planwarden/engine/analysis/job-store';
import { runJob, type RunSettings } from '@planwarden/engine/analysis/run-job';
import { CHECKS_ONLY_BACKEND } from '@planwarden/engine/analysis/analyze-service';
import { failAbandonedSyncJobs, type SyncLease } from '@planwarden/engine/analysis/sync-lease';
import type { LlmBackend, LlmProvider } from '@planwarden/engine/llm/types';
import { leaseOwnerIsDead, markOwnerLive, newLeaseOwner } from './lease-owner';

export interface JobRunnerOptions {
  readonly ctx: EngineContext;
  readonly settings: () => RunSettings & { stuck_timeout_minutes: number; sweep_interval_hours: number };
  readonly providerFor: (backend: LlmBackend, apiKey: string | null) => LlmProvider;
  readonly leaseSeconds: number;
  /** How many jobs this process runs at once (each with max_concurrent_units units in flight). */
  readonly maxParallelJobs?: number;
  /** Poll for queued/abandoned jobs this often (ms); an enqueue also wakes the runner at once. */
  readonly pollIntervalMs?: number;
  /**
   * Storage shared only within one host (sqlite, memory): at start, leases held by a dead
   * process of this host are released at once instead of waiting for them to expire; leases
   * of live replicas are left alone.
   */
  readonly reclaimOnStart?: boolean;
  readonly budgetExhausted?: (orgId: string) => Promise<boolean>;
  readonly sleep?: (ms: number) => Promise<void>;
  /** false: no own stuck-sweep timer (the server schedules the gated sweep in jobs/platform-tasks.ts). */
  readonly sweepTimer?: boolean;
}

/** The job facts of a lifecycle log line. */
function jobFacts(job: JobDoc) {
  return {
    job_id: job.job_id,
    org_id: job.org_id,
    namespace: job.namespace,
    status: job.status,
    trigger: job.trigger,
    retry_of: job.retry_of,
    resource_count: job.resource_count,
    processed_count: job.processed_count,
    total_count: job.total_count,
  };
}

/**
 * The background job runner (DESIGN.md "Scale-out"): claims async jobs with an atomic lease,
 * renews the lease while running, and resumes jobs whose runner died (lease expired). A job
 * resumed elsewhere skips the units already analysed, so nothing analysed is lost or paid twice
 * (usage/meter-unit.ts). Several replicas may share one store: each job runs in one at a time.
 * A retry waits until its original's runner has let go of it (units in flight finished).
 * Lifecycle lines (queued, started, resumed, finished, failed, cancelled) go to the context's
 * logger at info with the job id, org, namespace and counts.
 *
 * An inline `api_key` is kept only in this process's memory: a job that outlives its process
 * and has no stored credential fails with a message saying to retry it with a key.
 */
export class JobRunner {
  readonly owner = newLeaseOwner();
  private readonly keys = new Map<string, string | null>();
  private readonly active = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private syncTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The claim pass in progress (kick), awaited by stop so no store call outlives the runner. */
  private claiming: Promise<void> | null = null;
  /** Named job-end listeners (the code-host integration publishes a pull request's report). */
  private readonly endListeners = new Map<string, (job: JobDoc) => Promise<void>>();

  constructor(private readonly options: JobRunnerOptions) {}

  async start(): Promise<void> {
    const { ctx } = this.options;
    markOwnerLive(this.owner, true);
    if (this.options.reclaimOnStart) {
      for (const job of await ctx.stores.jobs.unsafeLeased()) {
        if (job.lease_owner && leaseOwnerIsDead(job.lease_owner)) await ctx.stores.jobs.unsafeReleaseLease(job.job_id, job.lease_owner);
      }
    }
    await this.recoverSyncJobs();
    // A replica that died mid sync analysis stops renewing its lease: look once per lease period.
    this.syncTimer = setInterval(() => void this.recoverSyncJobs(), this.options.leaseSeconds * 1000);
    this.syncTimer.unref();
    this.timer = setInterval(() => void this.kick(), this.options.pollIntervalMs ?? 2000);
    this.timer.unref();
    if (this.options.sweepTimer !== false) {
      const sweepEveryMs = this.options.settings().sweep_interval_hours * 3_600_000;
      this.sweepTimer = setInterval(() => {
        this.sweepStuck().catch((error: unknown) => ctx.log.error({ err: error }, 'stuck-job sweep failed'));
      }, sweepEveryMs);
      this.sweepTimer.unref();
    }
    void this.kick();
  }

  /**
   * Registers (or replaces, by name) a listener awaited after a job run here ends in a terminal
   * state; its failure is logged. `idle()` therefore also waits for the listeners.
   */
  onJobEnd(name: string, listener: (job: JobDoc) => Promise<void>): void {
    this.endListeners.set(name, listener);
  }

  private async emitEnd(job: JobDoc): Promise<void> {
    if (job.status !== 'done' && job.status !== 'failed' && job.status !== 'cancelled') return;
    for (const listener of this.endListeners.values()) {
      await listener(job).catch((error: unknown) => this.options.ctx.log.error({ err: error, job_id: job.job_id }, 'job-end listener failed'));
    }
  }

  /** The lease a sync analysis run by this process holds (wired into the analysis dependencies). */
  syncLease(): SyncLease {
    return { owner: this.owner, seconds: this.options.leaseSeconds };
  }

  /**
   * Sync analyses whose process died (analysis/sync-lease.ts): on storage shared only within
   * this host, those of a dead process of this host are failed at once, as its async jobs'
   * leases are released at start; everywhere, those whose lease expired. Failures are logged.
   */
  private async recoverSyncJobs(): Promise<void> {
    const { ctx } = this.options;
    const ownerIsDead = this.options.reclaimOnStart ? leaseOwnerIsDead : () => false;
    try {
      for (const job of await failAbandonedSyncJobs(ctx, ownerIsDead)) this.logOutcome(job);
    } catch (error) {
      ctx.log.error({ err: error }, 'sync job recovery failed');
    }
  }

  /** Accepts a freshly created async job; `apiKey` is held in memory only. */
  enqueue(job: JobDoc, apiKey: string | null): void {
    this.keys.set(job.job_id, apiKey);
    this.options.ctx.log.info(jobFacts(job), 'job queued');
    void this.kick();
  }

  /** Resolves when no job is running in this process and none is claimable right now (tests). */
  async idle(): Promise<void> {
    await this.kick();
    while (this.active.size > 0) {
      await Promise.all([...this.active.values()]);
      await this.kick();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.syncTimer) clearInterval(this.syncTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.claiming;
    await Promise.allSettled([...this.active.values()]);
    markOwnerLive(this.owner, false);
  }

  /**
   * Claims and starts jobs while this process has room. Never rejects: it is started without
   * being awaited (timers, enqueue, a job's end), so a failed claim (e.g. the store closing
   * under a poll) is logged, and the next poll tries again.
   */
  private kick(): Promise<void> {
    if (this.stopped || this.claiming) return this.claiming ?? Promise.resolve();
    this.claiming = this.claimWhileRoom()
      .catch((error: unknown) => {
        if (!this.stopped) this.options.ctx.log.error({ err: error }, 'job claim failed');
      })
      .finally(() => {
        this.claiming = null;
      });
    return this.claiming;
  }

  private async claimWhileRoom(): Promise<void> {
    const limit = this.options.maxParallelJobs ?? 2;
    while (!this.stopped && this.active.size < limit) {
      const now = this.options.ctx.now();
      const job = await this.claim(now);
      if (!job) break;
      if (await this.deferredBehindOriginal(job, now)) continue;
      const run = this.run(job).finally(() => {
        this.active.delete(job.job_id);
        void this.kick();
      });
      this.active.set(job.job_id, run);
    }
  }

  /**
   * Leases the next job this runner may run: first those whose inline api_key this process
   * holds, then those any replica can run (stored credential, keyless), then inline-key jobs
   * whose key holder let go of them or died (they fail here: the key is gone). A queued
   * inline-key job is left to the process that accepted it.
   */
  private async claim(now: Date): Promise<JobDoc | null> {
    const jobs = this.options.ctx.stores.jobs;
    const at = now.toISOString();
    const until = this.leaseUntil(now);
    if (this.keys.size > 0) {
      const mine = await jobs.unsafeClaimNext(this.owner, at, until, { job_id: { $in: [...this.keys.keys()] } });
      if (mine) return mine;
    }
    return (
      (await jobs.unsafeClaimNext(this.owner, at, until, { key_source: { $ne: 'inline' } })) ??
      jobs.unsafeClaimNext(this.owner, at, until, { key_source: 'inline', lease_owner: { $exists: true } })
    );
  }

  /**
   * A retry whose original is still leased (its runner finishes the units in flight after a
   * cancel) is given back and left unclaimable for one poll interval, so no unit is analysed by
   * both. Returns whether the job was deferred.
   */
  private async deferredBehindOriginal(job: JobDoc, now: Date): Promise<boolean> {
    if (!job.retry_of) return false;
    const original = await this.options.ctx.stores.jobs.get(job.org_id, job.retry_of);
    if (!original?.lease_owner || original.lease_expires_at <= now.toISOString()) return false;
    const until = new Date(now.getTime() + (this.options.pollIntervalMs ?? 2000)).toISOString();
    await this.options.ctx.stores.jobs.unsafeDeferClaim(job.job_id, this.owner, until);
    return true;
  }

  private leaseUntil(now: Date): string {
    return new Date(now.getTime() + this.options.leaseSeconds * 1000).toISOString();
  }

  private async run(job: JobDoc): Promise<void> {
    const { ctx } = this.options;
    const stores = ctx.stores;
    const renew = setInterval(
      () => {
        // A failed renewal is logged: the next one (or the run's end) follows within the lease.
        stores.jobs
          .unsafeRenewLease(job.job_id, this.owner, this.leaseUntil(ctx.now()))
          .catch((error: unknown) => ctx.log.warn({ err: error, job_id: job.job_id }, 'job lease renewal failed'));
      },
      Math.max(1000, (this.options.leaseSeconds * 1000) / 3),
    );
    renew.unref();
    try {
      ctx.log.info(jobFacts(job), job.status === 'running' ? 'job resumed' : 'job started');
      const apiKey = await this.keyFor(job);
      if (apiKey === undefined) {
        const now = ctx.now().toISOString();
        const failed = await stores.jobs.transition(job.org_id, job.job_id, ['queued', 'running'], {
          status: 'failed',
          finished_at: now,
          updated_at: now,
          error: 'The api_key given with this job is not stored and was lost when its server process stopped; retry the job with an api_key',
        });
        if (failed) this.logOutcome(failed);
        return;
      }
      const catalogue = await stores.models.get(job.llm_backend, job.model);
      const final = await runJob(ctx, job, {
        // A checks-only job (its retry included) runs the deterministic checks with no model.
        provider: job.llm_backend === CHECKS_ONLY_BACKEND ? null : this.options.providerFor(job.llm_backend as LlmBackend, apiKey),
        pricing: catalogue ?? { input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 },
        settings: this.options.settings(),
        shouldStop: async () => {
          if (this.stopped) return true;
          const current = await stores.jobs.get(job.org_id, job.job_id);
          return current?.status !== 'running' || current.lease_owner !== this.owner;
        },
        budgetExhausted: this.options.budgetExhausted ? () => this.options.budgetExhausted!(job.org_id) : undefined,
        sleep: this.options.sleep,
      });
      this.logOutcome(final);
      await this.emitEnd(final);
    } catch (error) {
      ctx.log.error({ err: error, job_id: job.job_id }, 'job run crashed');
      const now = ctx.now().toISOString();
      const failed = await stores.jobs.transition(job.org_id, job.job_id, ['queued', 'running'], {
        status: 'failed',
        error: 'Internal error while running the job',
        finished_at: now,
        updated_at: now,
      });
      if (failed) this.logOutcome(failed);
    } finally {
      clearInterval(renew);
      this.keys.delete(job.job_id);
      await stores.jobs.unsafeReleaseLease(job.job_id, this.owner);
    }
  }

  /** The lifecycle line for how a run here ended; a run that stopped with the job still running (lease lost, shutdown) says so. */
  private logOutcome(job: JobDoc): void {
    const facts = { ...jobFacts(job), quota_exceeded: job.quota_exceeded, error: job.error };
    const message = {
      done: 'job finished',
      failed: 'job failed',
      cancelled: 'job cancelled',
      queued: 'job left queued',
      running: 'job left running for another runner',
    }[job.status];
    this.options.ctx.log.info(facts, message);
  }

  /** The key to use: in-memory inline key, the org's stored credential, or null for keyless; undefined = lost. */
  private async keyFor(job: JobDoc): Promise<string | null | undefined> {
    if (this.keys.has(job.job_id)) return this.keys.get(job.job_id) ?? null;
    if (job.key_source === 'inline') return undefined;
    if (job.key_source === 'none') return null;
    const stored = await this.options.ctx.stores.credentials.reveal(job.org_id, job.llm_backend);
    return stored ?? undefined;
  }

  /** The stuck sweep (identity-api.md POST /admin/jobs/sweep): fails jobs with no progress for over the timeout. */
  async sweepStuck(): Promise<number> {
    const { ctx } = this.options;
    const now = ctx.now();
    const before = new Date(now.getTime() - this.options.settings().stuck_timeout_minutes * 60_000).toISOString();
    return ctx.stores.jobs.unsafeFailStuck(before, now.toISOString(), 'No progress for over jobs.stuck_timeout_minutes; marked failed by the stuck-job sweep');
  }
}
