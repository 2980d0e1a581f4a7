import type { EngineContext } from '../context/engine-context';
import type { JobDoc } from './job-store';

/**
 * The lease a sync analysis holds while the HTTP request that started it runs it (DESIGN.md
 * "Scale-out"): the same owner id and duration as the background runner's leases, so a restarted
 * process, or any replica once the lease has expired, can tell the run has no process left.
 */
export interface SyncLease {
  /** The lease owner id of this process's runner (`runner:<host>:<pid>:<uuid>`). */
  readonly owner: string;
  /** Lease duration in seconds (`jobs.lease_seconds`); renewed every third of it while the run lasts. */
  readonly seconds: number;
}

/** What a sync job whose process died says (analysis-api.md "Job status": running then failed). */
export const ABANDONED_SYNC_JOB_ERROR = 'The server process running this sync analysis stopped before it finished; retry the job to analyse what is left';

/** When a lease of `lease.seconds` taken now expires (ISO-8601). */
function leaseUntil(ctx: EngineContext, lease: SyncLease): string {
  return new Date(ctx.now().getTime() + lease.seconds * 1000).toISOString();
}

/**
 * The lease fields a sync job is created with (JobStore.create), so the job is never stored
 * running without a lease: a process that dies right after creating it leaves a job the next
 * start fails (failAbandonedSyncJobs), not one left to the stuck-job sweep. `{}` without a lease.
 */
export function syncLeaseFields(ctx: EngineContext, lease: SyncLease | undefined): { lease_owner?: string; lease_expires_at?: string } {
  return lease ? { lease_owner: lease.owner, lease_expires_at: leaseUntil(ctx, lease) } : {};
}

/**
 * Runs `run` (the sync analysis of `job`, already `running`) under `lease`: stamps the lease on
 * the job unless it was created holding it (syncLeaseFields), renews it until `run` settles, and
 * returns what `run` returns. Without a lease (a caller that wires none) it only runs `run`.
 */
export async function runUnderSyncLease<T>(ctx: EngineContext, job: JobDoc, lease: SyncLease | undefined, run: () => Promise<T>): Promise<T> {
  if (!lease) return run();
  const jobs = ctx.stores.jobs;
  const until = () => leaseUntil(ctx, lease);
  if (job.lease_owner !== lease.owner) await jobs.transition(job.org_id, job.job_id, ['running'], { lease_owner: lease.owner, lease_expires_at: until() });
  const renew = setInterval(
    () => {
      jobs
        .unsafeRenewLease(job.job_id, lease.owner, until())
        .catch((error: unknown) => ctx.log.warn({ err: error, job_id: job.job_id }, 'sync job lease renewal failed'));
    },
    Math.max(1000, (lease.seconds * 1000) / 3),
  );
  renew.unref();
  try {
    return await run();
  } finally {
    clearInterval(renew);
  }
}

/**
 * Fails every running sync job whose process is gone: its lease owner is judged dead by
 * `ownerIsDead` (a process of this host that no longer exists) or its lease expired (a replica
 * that stopped renewing). The caller's request died with the process, so nobody waits for the
 * result; the failed job can be retried (POST /jobs/{job_id}/retry) over its unanalysed units.
 * A sync job holding no lease (stored before sync leases) is left to the stuck-job sweep.
 * Returns the jobs failed here.
 */
export async function failAbandonedSyncJobs(ctx: EngineContext, ownerIsDead: (owner: string) => boolean): Promise<JobDoc[]> {
  const now = ctx.now().toISOString();
  const failed: JobDoc[] = [];
  for (const job of await ctx.stores.jobs.unsafeLeasedSync()) {
    if (!job.lease_owner || (!ownerIsDead(job.lease_owner) && job.lease_expires_at >= now)) continue;
    const done = await ctx.stores.jobs.transition(job.org_id, job.job_id, ['running'], {
      status: 'failed',
      error: ABANDONED_SYNC_JOB_ERROR,
      finished_at: now,
      updated_at: now,
      lease_owner: null,
      lease_expires_at: '',
    });
    if (done) failed.push(done);
  }
  return failed;
}
