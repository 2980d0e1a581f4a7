import { randomUUID } from 'node:crypto';
import type { Collection, Filter, IndexSpec, Store } from '../store/port';

/** analysis-api.md "Detection entry" (auto-routing audit), as stored on a job. */
export interface DetectionEntry {
  path: string;
  detected_kind: string;
  analyzer: string | null;
  confidence: number;
  reason: string | null;
  fallback: boolean;
}

/** analysis-api.md "Job status". */
export type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'done', 'failed', 'cancelled'];
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['done', 'failed', 'cancelled'];

/** analysis-api.md "Job", plus what the runner needs to resume it. */
export interface JobDoc {
  _id?: string;
  job_id: string;
  org_id: string;
  namespace: string;
  analyzer: string;
  analyzers_used: string[];
  detections: DetectionEntry[];
  status: JobStatus;
  mode: 'sync' | 'async';
  trigger: string;
  external_ref: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  resource_count: number;
  processed_count: number;
  total_count: number;
  current_resource: { hash: string; resource_address: string; type: string } | null;
  quota_exceeded: boolean;
  error: string | null;
  llm_backend: string;
  model: string;
  rule_type: string | null;
  retry_of: string | null;
  /** Resource hashes this job analyses, in order. */
  hashes: string[];
  /** 'inline': the caller's api_key lives only in the memory of the process that accepted the job. */
  key_source: 'inline' | 'stored' | 'none';
  /** Runner lease (DESIGN.md "Scale-out"): who runs it and until when ('' = not leased). */
  lease_owner: string | null;
  lease_expires_at: string;
  /**
   * The job id of this job's latest retry (POST /jobs/{id}/retry): at most one retry of a job is
   * in flight, reserved by compare-and-set on this field (claimRetrySlot). Absent on older jobs.
   */
  active_retry?: string | null;
  /** The namespace run this job's ingest recorded (docs/decisions.md "Runs compared"); absent on retries and older jobs. */
  run_id?: string | null;
  /** Set when the run loop ends: this run's findings against the namespace's previous run (run-comparison.ts). */
  runs_compared?: RunComparison | null;
}

/**
 * "+N new · −M no longer detected · K unchanged" of one run (docs/decisions.md "Runs compared"),
 * counted in triage records.
 */
export interface RunComparison {
  new: number;
  no_longer_detected: number;
  unchanged: number;
}

/**
 * A job without its unit hashes: what job lists and the namespace's latest-job look-up read. The
 * `jobs` collection stores this shape; the hashes live in `job_units`, written once when the job
 * is created, so a progress step rewrites a document of constant size whatever the number of units
 * (docs/decisions.md "Job progress"). Jobs stored before that split still hold `hashes` inline.
 */
export type JobSummary = Omit<JobDoc, 'hashes'> & { hashes?: string[] };

/** The unit hashes of one job, in order (one document per job, never updated). */
interface JobUnitsDoc {
  _id?: string;
  org_id: string;
  job_id: string;
  hashes: string[];
}

export const JOB_INDEXES: Record<string, IndexSpec[]> = {
  jobs: [
    { name: 'job_id', keys: { job_id: 1 }, unique: true },
    { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
    { name: 'status_lease', keys: { status: 1, lease_expires_at: 1 } },
  ],
  job_units: [{ name: 'job_id', keys: { job_id: 1 }, unique: true }],
};

export type NewJob = Omit<
  JobDoc,
  | '_id'
  | 'job_id'
  | 'status'
  | 'created_at'
  | 'updated_at'
  | 'finished_at'
  | 'processed_count'
  | 'current_resource'
  | 'quota_exceeded'
  | 'error'
  | 'lease_owner'
  | 'lease_expires_at'
  | 'active_retry'
  | 'runs_compared'
> & {
  status?: JobStatus;
  /** A job id reserved beforehand (a retry's); default a fresh UUID. */
  job_id?: string;
  /** A lease the job is created holding (a sync run's, analysis/sync-lease.ts); default none. */
  lease_owner?: string | null;
  lease_expires_at?: string;
};

/** How many jobs' unit hash lists a JobStore keeps in memory (a few concurrent runs' worth). */
const RECENT_HASH_LISTS = 16;

/** Typed store for jobs. Tenant methods take the org first; cross-tenant runner methods are `unsafe*`. */
export class JobStore {
  private readonly jobs: Collection<JobSummary>;
  private readonly units: Collection<JobUnitsDoc>;
  /** Unit hash lists of recently read jobs, least recently used first (see withHashes). */
  private readonly recentHashes = new Map<string, string[]>();

  constructor(store: Store) {
    this.jobs = store.collection<JobSummary>('jobs');
    this.units = store.collection<JobUnitsDoc>('job_units');
  }

  /**
   * The job with its unit hashes (from `job_units`, or inline on a job stored before the split);
   * null stays null. A job's hashes never change once written, so the last few jobs' lists are
   * kept here (frozen, shared): the runner reads its job before every unit, and that read must not
   * parse the whole list each time.
   */
  private async withHashes(job: JobSummary | null): Promise<JobDoc | null> {
    if (!job) return null;
    if (Array.isArray(job.hashes)) return job as JobDoc;
    const key = `${job.org_id}\u0000${job.job_id}`;
    let hashes = this.recentHashes.get(key);
    if (hashes) {
      this.recentHashes.delete(key); // re-inserted below: most recently used last
    } else {
      const units = await this.units.findOne({ org_id: job.org_id, job_id: job.job_id });
      // A job without its units document (none written yet) is not cached: it may appear.
      if (!units) return { ...job, hashes: [] };
      hashes = Object.freeze([...units.hashes]) as string[];
    }
    this.recentHashes.set(key, hashes);
    if (this.recentHashes.size > RECENT_HASH_LISTS) this.recentHashes.delete(this.recentHashes.keys().next().value as string);
    return { ...job, hashes };
  }

  /**
   * Inserts the job: its hashes first (a job is never visible without them), then the job
   * document, in one write with its lease when `job` names one.
   */
  async create(job: NewJob, now: string): Promise<JobDoc> {
    const { hashes, ...rest } = job;
    const summary: JobSummary = {
      ...rest,
      job_id: job.job_id ?? randomUUID(),
      status: job.status ?? 'queued',
      created_at: now,
      updated_at: now,
      finished_at: null,
      processed_count: 0,
      current_resource: null,
      quota_exceeded: false,
      error: null,
      lease_owner: job.lease_owner ?? null,
      lease_expires_at: job.lease_expires_at ?? '',
    };
    await this.units.insertOne({ org_id: summary.org_id, job_id: summary.job_id, hashes: [...hashes] });
    try {
      await this.jobs.insertOne(summary);
    } catch (error) {
      await this.units.deleteOne({ org_id: summary.org_id, job_id: summary.job_id });
      throw error;
    }
    return { ...summary, hashes: [...hashes] };
  }

  async get(orgId: string, jobId: string): Promise<JobDoc | null> {
    return this.withHashes(await this.jobs.findOne({ org_id: orgId, job_id: jobId }));
  }

  /** A page of the org's jobs, newest first, without their unit hashes. */
  async list(orgId: string, status: JobStatus | undefined, page: { limit: number; offset: number }): Promise<{ jobs: JobSummary[]; total: number }> {
    const filter: Filter = { org_id: orgId };
    if (status) filter.status = status;
    const [jobs, total] = await Promise.all([
      this.jobs.find(filter, { sort: { created_at: -1, job_id: 1 }, skip: page.offset, limit: page.limit }),
      this.jobs.count(filter),
    ]);
    return { jobs, total };
  }

  /** The newest job of a namespace without its unit hashes, or null. */
  latestForNamespace(orgId: string, namespace: string): Promise<JobSummary | null> {
    return this.jobs.findOne({ org_id: orgId, namespace }, { sort: { created_at: -1 } });
  }

  /** Applies `changes` when the job is still in one of `fromStatuses`; returns the new doc or null. */
  async transition(orgId: string, jobId: string, fromStatuses: readonly JobStatus[], changes: Partial<JobSummary>): Promise<JobDoc | null> {
    const after = await this.jobs.findOneAndUpdate(
      { org_id: orgId, job_id: jobId, status: { $in: fromStatuses } },
      { $set: changes },
      { returnDocument: 'after' },
    );
    return this.withHashes(after);
  }

  /**
   * Reserves the single retry slot of a job (analysis-api.md POST /jobs/{job_id}/retry): sets
   * `active_retry` to `retryId` only if it still holds `expected` (null = no retry yet), in one
   * atomic compare-and-set, so of two racing retries exactly one wins. Returns whether it did.
   */
  async claimRetrySlot(orgId: string, jobId: string, expected: string | null, retryId: string): Promise<boolean> {
    const current = expected === null ? { $exists: false } : expected;
    const claimed = await this.jobs.findOneAndUpdate({ org_id: orgId, job_id: jobId, active_retry: current }, { $set: { active_retry: retryId } });
    return claimed !== null;
  }

  /** Gives the retry slot back when the reserved retry could not be created. */
  async releaseRetrySlot(orgId: string, jobId: string, retryId: string): Promise<void> {
    await this.jobs.updateOne({ org_id: orgId, job_id: jobId, active_retry: retryId }, { $set: { active_retry: null } });
  }

  /**
   * Progress report: sets the counters and stamps updated_at (the stuck sweep reads it). One
   * update of the job document, which holds no unit hashes: its cost does not grow with the job's
   * number of units (docs/decisions.md "Job progress"). Returns nothing (no read back).
   */
  async progress(orgId: string, jobId: string, changes: Pick<Partial<JobSummary>, 'processed_count' | 'current_resource'>, now: string): Promise<void> {
    await this.jobs.updateOne({ org_id: orgId, job_id: jobId }, { $set: { ...changes, updated_at: now } });
  }

  /**
   * Cross-tenant (the runner serves every org): atomically leases the oldest async job that is
   * queued, or running with an expired lease (its replica died), among those matching `where`
   * (extra equality/operator conditions). Returns null when there is none.
   */
  async unsafeClaimNext(owner: string, now: string, leaseUntil: string, where: Filter = {}): Promise<JobDoc | null> {
    // An unleased job holds lease_expires_at '' which sorts before every timestamp.
    const claimed = await this.jobs.findOneAndUpdate(
      { ...where, mode: 'async', status: { $in: ['queued', 'running'] }, lease_expires_at: { $lt: now } },
      { $set: { lease_owner: owner, lease_expires_at: leaseUntil, updated_at: now } },
      { sort: { created_at: 1 }, returnDocument: 'after' },
    );
    return this.withHashes(claimed);
  }

  /** Cross-tenant (the runner at start): unfinished async jobs that hold a lease, without their unit hashes. */
  unsafeLeased(): Promise<JobSummary[]> {
    return this.jobs.find({ mode: 'async', status: { $in: ['queued', 'running'] }, lease_owner: { $exists: true } });
  }

  /**
   * Cross-tenant (the runner): running sync jobs that hold a lease (their server process stamps
   * it, analysis/sync-lease.ts), without their unit hashes.
   */
  unsafeLeasedSync(): Promise<JobSummary[]> {
    return this.jobs.find({ mode: 'sync', status: 'running', lease_owner: { $exists: true } });
  }

  /**
   * Cross-tenant (the runner): gives back a lease just claimed and keeps the job unclaimable
   * until `until` (ISO), e.g. a retry whose original still finishes its units in flight.
   */
  unsafeDeferClaim(jobId: string, owner: string, until: string): Promise<JobSummary | null> {
    return this.jobs.findOneAndUpdate({ job_id: jobId, lease_owner: owner }, { $set: { lease_owner: null, lease_expires_at: until } });
  }

  /**
   * Releases a lease (the run here ended): the job is claimable at once. lease_owner keeps the
   * last runner, which tells the others an inline-key job's key holder has let go of it.
   */
  unsafeReleaseLease(jobId: string, owner: string): Promise<JobSummary | null> {
    return this.jobs.findOneAndUpdate({ job_id: jobId, lease_owner: owner }, { $set: { lease_expires_at: '' } });
  }

  /** Cross-tenant (the runner): extends a lease it holds; null when it lost it. */
  unsafeRenewLease(jobId: string, owner: string, leaseUntil: string): Promise<JobSummary | null> {
    return this.jobs.findOneAndUpdate({ job_id: jobId, lease_owner: owner }, { $set: { lease_expires_at: leaseUntil } });
  }

  /** Cross-tenant (the stuck sweep): fails queued/running jobs with no progress since `before`. */
  async unsafeFailStuck(before: string, now: string, message: string): Promise<number> {
    const stuck = await this.jobs.find({ status: { $in: ['queued', 'running'] }, updated_at: { $lt: before } });
    let count = 0;
    for (const job of stuck) {
      const done = await this.jobs.findOneAndUpdate(
        { job_id: job.job_id, status: { $in: ['queued', 'running'] }, updated_at: { $lt: before } },
        { $set: { status: 'failed', error: message, finished_at: now, updated_at: now, lease_owner: null, lease_expires_at: '' } },
      );
      if (done) count += 1;
    }
    return count;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly jobs: JobStore;
  }
}
