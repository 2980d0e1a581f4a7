/**
 * A small bounded pool of worker threads for ingestion (no event-loop stalls while
 * large plans are parsed, split and hashed). At most `size` threads (default: one less than the
 * cores, at least 1, at most 2), started on first use and stopped after `IDLE_MS` without work;
 * jobs beyond that wait in FIFO order. Each thread runs one job at a time (worker-impl.ts).
 * A thread that dies fails its job in flight; the next job starts a new thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import * as errors from '../core/errors';
import type { AnalysisUnit } from '../core/unit';
import type { AutoRouteResult } from './auto-route';
import type { IngestJob, IngestReply, WorkerFailure } from './worker-impl';

/** Set by scripts/build-server.mjs (esbuild `define`) to the compiled worker body's URL. */
declare const __PLANWARDEN_INGEST_WORKER_IMPL__: string | undefined;
const COMPILED_IMPL = typeof __PLANWARDEN_INGEST_WORKER_IMPL__ === 'string' ? __PLANWARDEN_INGEST_WORKER_IMPL__ : null;

const IDLE_MS = 30_000;
/**
 * Old-generation cap of a worker (one job at a time). A 10 MiB plan (the ingest limit) splits in
 * 160 MB of old space (raw text, parsed plan and units together; measured); the cap
 * leaves more than twice that, and keeps V8 collecting well before the server's memory budget
 * (a lower cap is also a smaller peak RSS).
 */
const WORKER_HEAP_MB = 384;
/**
 * Young generation of a worker, set explicitly: `npm start` runs the server with smaller
 * semi-spaces (package.json, less memory at rest), which would otherwise apply to this thread's
 * parse of a 10 MB plan too; this is V8's 64-bit default (3 × 16 MB semi-space).
 */
const WORKER_YOUNG_MB = 48;

/**
 * What a job yields: every unit (tagged with its analyzer), plus the routing facts of an auto
 * job; a recorded job (IngestJob `record`) yields no unit objects but `json`, the pieces of
 * JSON.stringify(units) without its brackets, and the units' `hashes`, in input order.
 */
export interface IngestResult {
  readonly units: AnalysisUnit[];
  readonly json?: string[];
  readonly hashes?: string[];
  readonly routed?: Omit<AutoRouteResult, 'units'>;
}
type Pending = { job: IngestJob; resolve: (r: IngestResult) => void; reject: (e: Error) => void };

/**
 * The AppError subclass (errors.ts) a worker reported, rebuilt on this thread with the same
 * class (so `instanceof ValidationError` holds), status, detail and extra fields; else an Error.
 */
function rebuild(failure: WorkerFailure): Error {
  const Ctor = (errors as Record<string, unknown>)[failure.name];
  if (failure.status === null || typeof Ctor !== 'function' || !(Ctor.prototype instanceof errors.AppError)) {
    return new Error(failure.message);
  }
  const error = new errors.AppError(failure.status, failure.message, failure.extra);
  Object.setPrototypeOf(error, Ctor.prototype as object);
  error.name = failure.name;
  return error;
}

class PoolWorker {
  readonly #thread: Worker;
  readonly #ready: Promise<void>;
  /** The job in flight: how to settle it and what it sent so far (not the job: its raw body is freed once posted). */
  #current: (Omit<Pending, 'job'> & { id: number; units: AnalysisUnit[]; json: string[] }) | null = null;
  #idle: NodeJS.Timeout | null = null;
  #nextId = 1;
  dead = false;

  constructor(
    private readonly onExit: (w: PoolWorker) => void,
    private readonly onIdleTimeout: (w: PoolWorker) => void,
  ) {
    this.#thread = new Worker(new URL('./worker.mjs', import.meta.url), {
      workerData: { impl: COMPILED_IMPL },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
    });
    this.#ready = new Promise((resolve, reject) => {
      this.#thread.on('message', (msg: IngestReply | { type: 'ready' }) => {
        if (msg.type === 'ready') resolve();
        else this.#receive(msg);
      });
      this.#thread.on('error', (error) => {
        reject(error);
        this.#die(error);
      });
      this.#thread.on('exit', (code) => this.#die(new Error(`ingest worker stopped (exit code ${code})`)));
    });
    this.#ready.catch(() => {}); // failures reach the job through #die
    // Held only while a job is in flight (run / #receive): an idle thread never keeps the process
    // alive, so a command exits once its work is done instead of when IDLE_MS ends. Set after the
    // listeners, since adding a 'message' listener holds the thread's port again.
    this.#thread.unref();
  }

  get busy(): boolean {
    return this.#current !== null;
  }

  run(pending: Pending): void {
    if (this.#idle) {
      clearTimeout(this.#idle);
      this.#idle = null;
    }
    const id = this.#nextId++;
    this.#thread.ref();
    this.#current = { resolve: pending.resolve, reject: pending.reject, id, units: [], json: [] };
    const { job } = pending;
    // Bytes move to the thread (transferred, not copied): the event loop no longer holds them.
    const transfer = typeof job.raw === 'string' ? [] : [job.raw.buffer as ArrayBuffer];
    void this.#ready.then(
      () => this.#thread.postMessage({ id, job }, transfer),
      () => {},
    );
  }

  stop(): void {
    this.dead = true;
    void this.#thread.terminate();
  }

  #receive(reply: IngestReply): void {
    const current = this.#current;
    if (!current || current.id !== reply.id) return;
    if (reply.type === 'units') {
      for (const unit of reply.units) current.units.push(unit);
      return;
    }
    if (reply.type === 'json') {
      current.json.push(reply.text);
      return;
    }
    this.#current = null;
    this.#thread.unref();
    this.#idle = setTimeout(() => this.onIdleTimeout(this), IDLE_MS);
    this.#idle.unref();
    if (reply.ok) {
      current.resolve(
        reply.hashes ? { units: [], json: current.json, hashes: reply.hashes, routed: reply.routed } : { units: current.units, routed: reply.routed },
      );
    } else current.reject(rebuild(reply.failure));
  }

  #die(error: Error): void {
    if (this.#idle) clearTimeout(this.#idle);
    const current = this.#current;
    this.#current = null;
    current?.reject(error);
    if (!this.dead) {
      this.dead = true;
      this.onExit(this);
    }
  }
}

class IngestPool {
  readonly #workers = new Set<PoolWorker>();
  readonly #queue: Pending[] = [];

  constructor(public size: number) {}

  run(job: IngestJob): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let worker = [...this.#workers].find((w) => !w.busy && !w.dead);
      if (!worker) {
        if (this.#workers.size >= this.size) return;
        worker = new PoolWorker(
          (w) => this.#forget(w),
          (w) => {
            w.stop();
            this.#forget(w);
          },
        );
        this.#workers.add(worker);
      }
      const pending = this.#queue.shift()!;
      const settle =
        <A extends unknown[]>(fn: (...a: A) => void) =>
        (...a: A) => {
          fn(...a);
          queueMicrotask(() => this.#pump());
        };
      worker.run({ job: pending.job, resolve: settle(pending.resolve), reject: settle(pending.reject) });
    }
  }

  #forget(worker: PoolWorker): void {
    this.#workers.delete(worker);
    this.#pump();
  }
}

const DEFAULT_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1));
const pool = new IngestPool(DEFAULT_SIZE);

/**
 * Sets the number of ingest threads (0: split every body on the calling thread, as before
 * the pool existed; used by the benchmark's same-run baseline). Threads over a smaller size stop when
 * their job ends or they idle out.
 */
export function configureIngestPool(size: number): void {
  if (!Number.isInteger(size) || size < 0) throw new TypeError('ingest pool size must be a non-negative integer');
  pool.size = size;
}

/** The configured number of ingest threads (0: none, everything inline). */
export function ingestPoolSize(): number {
  return pool.size;
}

/** Bodies smaller than this (in UTF-16 code units) are split on the calling thread: the thread hop costs more. */
export const WORKER_MIN_CHARS = 64 * 1024;

/**
 * Runs `job` on the ingest pool; a `raw` given as bytes is transferred to the thread (the caller's
 * view is emptied). Resolves with its units (received in chunks, so no single
 * event-loop turn deserialises them all) and, for an auto job, the routing facts. Rejects with the AppError subclass the analyzer raised (e.g.
 * ValidationError, 422, for unparseable input), rebuilt on this thread with the same status,
 * detail and extra fields; with a plain Error when the worker thread itself failed.
 */
export function runIngestJob(job: IngestJob): Promise<IngestResult> {
  if (typeof job.raw !== 'string' && (job.raw.byteOffset !== 0 || job.raw.byteLength !== job.raw.buffer.byteLength)) {
    job = { ...job, raw: new Uint8Array(job.raw) }; // a view on a larger buffer: transfer a copy of its bytes only
  }
  return pool.run(job);
}
