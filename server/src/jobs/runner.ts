import { randomUUID } from 'node:crypto';
import type { EngineContext } from '@planwarden/engine/context';
import type { JobDoc } from '@planwarden/engine/analysis/job-store';
import { runJob, type RunSettings } from '@planwarden/engine/analysis/run-job';
import type { LlmBackend, LlmProvider } from '@planwarden/engine/llm/types';

export interface JobRunnerOptions {
  readonly ctx: EngineContext;
  readonly settings: () => RunSettings & { stuck_timeout_minutes: number; sweep_interval_hours: number };
  readonly providerFor: (backend: LlmBackend, apiKey: string | null) => LlmProvider;
  readonly leaseSeconds: number;
  /** How many jobs this process runs at once (each with max_concurrent_units units in flight). */
  readonly maxParallelJobs?: number;
  /** Poll for queued/abandoned jobs this often (ms); an enqueue also wakes the runner at once. */
  readonly pollIntervalMs?: number;
  /** Single-process storage (sqlite, memory): leases of a previous process are dead at start. */
  readonly reclaimOnStart?: boolean;
  readonly budgetExhausted?: (orgId: string) => Promise<boolean>;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The background job runner (DESIGN.md "Scale-out"): claims async jobs with an atomic lease,
 * renews the lease while running, and resumes jobs whose runner died (lease expired). A job
 * resumed elsewhere skips the units already analysed, so nothing analysed is lost or paid twice.
 *
 * An inline `api_key` is kept only in this process's memory: a job that outlives its process
 * and has no stored credential fails with a message saying to retry it with a key.
 */
export class JobRunner {
  readonly owner = `runner-${randomUUID()}`;
  private readonly keys = new Map<string, string | null>();
  private readonly active = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private claiming = false;

  constructor(private readonly options: JobRunnerOptions) {}

  async start(): Promise<void> {
    const { ctx } = this.options;
    if (this.options.reclaimOnStart) {
      await ctx.stores.store.collection('jobs').updateMany(
        { mode: 'async', status: { $in: ['queued', 'running'] } },
        { $set: { lease_owner: null, lease_expires_at: '' } },
      );
    }
    this.timer = setInterval(() => void this.kick(), this.options.pollIntervalMs ?? 2000);
    this.timer.unref();
    const sweepEveryMs = this.options.settings().sweep_interval_hours * 3_600_000;
    this.sweepTimer = setInterval(() => {
      this.sweepStuck().catch((error: unknown) => ctx.log.error({ err: error }, 'stuck-job sweep failed'));
    }, sweepEveryMs);
    this.sweepTimer.unref();
    void this.kick();
  }

  /** Accepts a freshly created async job; `apiKey` is held in memory only. */
  enqueue(job: JobDoc, apiKey: string | null): void {
    this.keys.set(job.job_id, apiKey);
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
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.allSettled([...this.active.values()]);
  }

  private async kick(): Promise<void> {
    if (this.stopped || this.claiming) return;
    this.claiming = true;
    try {
      const limit = this.options.maxParallelJobs ?? 2;
      while (!this.stopped && this.active.size < limit) {
        const now = this.options.ctx.now();
        const job = await this.options.ctx.stores.jobs.unsafeClaimNext(this.owner, now.toISOString(), this.leaseUntil(now));
        if (!job) break;
        const run = this.run(job).finally(() => {
          this.active.delete(job.job_id);
          void this.kick();
        });
        this.active.set(job.job_id, run);
      }
    } finally {
      this.claiming = false;
    }
  }

  private leaseUntil(now: Date): string {
    return new Date(now.getTime() + this.options.leaseSeconds * 1000).toISOString();
  }

  private async run(job: JobDoc): Promise<void> {
    const { ctx } = this.options;
    const stores = ctx.stores;
    const renew = setInterval(() => {
      void stores.jobs.unsafeRenewLease(job.job_id, this.owner, this.leaseUntil(ctx.now()));
    }, Math.max(1000, (this.options.leaseSeconds * 1000) / 3));
    renew.unref();
    try {
      const apiKey = await this.keyFor(job);
      if (apiKey === undefined) {
        const now = ctx.now().toISOString();
        await stores.jobs.transition(job.org_id, job.job_id, ['queued', 'running'], {
          status: 'failed', finished_at: now, updated_at: now,
          error: 'The api_key given with this job is not stored and was lost when its server process stopped; retry the job with an api_key',
        });
        return;
      }
      const catalogue = await stores.models.get(job.llm_backend, job.model);
      await runJob(ctx, job, {
        provider: this.options.providerFor(job.llm_backend as LlmBackend, apiKey),
        pricing: catalogue ?? { input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 },
        settings: this.options.settings(),
        shouldStop: async () => {
          if (this.stopped) return true;
          const current = await stores.jobs.get(job.org_id, job.job_id);
          return !current || current.status !== 'running' || current.lease_owner !== this.owner;
        },
        budgetExhausted: this.options.budgetExhausted ? () => this.options.budgetExhausted!(job.org_id) : undefined,
        sleep: this.options.sleep,
      });
    } catch (error) {
      ctx.log.error({ err: error, job_id: job.job_id }, 'job run crashed');
      const now = ctx.now().toISOString();
      await stores.jobs.transition(job.org_id, job.job_id, ['queued', 'running'], {
        status: 'failed', error: 'Internal error while running the job', finished_at: now, updated_at: now,
      });
    } finally {
      clearInterval(renew);
      this.keys.delete(job.job_id);
      await stores.jobs.unsafeReleaseLease(job.job_id, this.owner);
    }
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
