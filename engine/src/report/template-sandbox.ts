import { Worker } from 'node:worker_threads';
import { ValidationError } from '../core/errors';
import type { ReportModel } from './model';
import { TEMPLATE_LIMITS, type RenderedReport, type ReportFormat } from './formats';
import type { SandboxJob, SandboxReply } from './template-sandbox-impl';
import { FairQueue, TEMPLATE_SANDBOX_DEFAULTS, type SandboxLimits } from './template-sandbox-queue';

/**
 * Set by a bundler (`define`, e.g. electron.vite.config.ts) to the URL of the compiled
 * template-sandbox-impl body beside the bundle; unset, the worker imports the TypeScript body
 * through tsx (as the ingest worker pool does).
 */
declare const __PLANWARDEN_TEMPLATE_WORKER_IMPL__: string | undefined;
const COMPILED_IMPL = typeof __PLANWARDEN_TEMPLATE_WORKER_IMPL__ === 'string' ? __PLANWARDEN_TEMPLATE_WORKER_IMPL__ : null;

/**
 * Org templates run off the main thread (analysis-api.md "Report templates": rendering is
 * sandboxed; a template that loops forever, builds a huge string or reaches for
 * anything but its variables fails with 422 quickly and never stalls the server).
 *
 * LiquidJS's own limits (render/parse/memory, own properties only; report/render.ts) still
 * apply inside a worker; each worker adds what a thread of its own can: the event loop that
 * serves requests never runs template code, a heap cap (`resourceLimits`) and a wall-clock
 * watchdog that terminates the worker (then replaced) if a render outlives its budget.
 *
 * A pool of workers shared fairly between lanes (template-sandbox-queue.ts; docs/decisions.md
 * "Template sandbox fairness lanes"): each lane (the account responsible for the render,
 * template-sandbox-lane.ts) has a concurrency cap and a bounded queue, so one account's slow
 * templates delay only its own renders, however many orgs it spreads them over, and its overflow
 * answers 429 with Retry-After.
 */

/** Watchdog: LiquidJS's renderLimit plus this grace, then the worker is terminated. */
const WATCHDOG_GRACE_MS = 2_000;
const WORKER_HEAP_MB = 256;
/** Retry-After of a refused render: the longest one render may hold a worker, in seconds. */
const RETRY_AFTER_SECONDS = Math.ceil((TEMPLATE_LIMITS.renderMs + WATCHDOG_GRACE_MS) / 1000);

type JobInput = SandboxJob extends infer J ? (J extends SandboxJob ? Omit<J, 'id'> : never) : never;

/** One worker thread running one job at a time; restarted lazily after it dies or is killed. */
class SandboxWorker {
  private ready: Promise<Worker> | null = null;
  private thread: Worker | null = null;
  private current: { id: number; worker: Worker; resolve: (r: SandboxReply) => void; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  /** Runs `job`; never rejects (a failure is an `ok: false` reply). */
  async run(job: JobInput): Promise<SandboxReply> {
    const id = this.nextId++;
    let worker: Worker;
    try {
      worker = await this.start();
    } catch (error) {
      this.ready = null;
      return { type: 'result', id, ok: false, message: `template sandbox unavailable: ${(error as Error).message}` };
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.fail(worker, `template failed to render: exceeded ${TEMPLATE_LIMITS.renderMs} ms`);
        void worker.terminate();
      }, TEMPLATE_LIMITS.renderMs + WATCHDOG_GRACE_MS);
      timer.unref();
      this.current = { id, worker, resolve, timer };
      worker.postMessage({ ...job, id } as SandboxJob);
    });
  }

  /** Stops the thread (when the pool shrinks); only called while idle. */
  retire(): void {
    void this.thread?.terminate();
    this.thread = null;
    this.ready = null;
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    const ready = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(new URL('./template-sandbox-worker.mjs', import.meta.url), {
        workerData: { impl: COMPILED_IMPL },
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        stdout: false,
        stderr: false,
      });
      worker.unref();
      worker.on('message', (msg: SandboxReply | { type: 'ready' }) => {
        if (msg.type === 'ready') {
          this.thread = worker;
          resolve(worker);
          return;
        }
        this.finish(msg);
      });
      worker.on('error', (error) => {
        reject(error); // no-op once ready
        this.fail(worker, `template failed to render: ${error.message}`);
      });
      worker.on('exit', () => this.fail(worker, 'template failed to render: sandbox stopped'));
    });
    this.ready = ready;
    return ready;
  }

  private finish(reply: SandboxReply): void {
    if (!this.current || this.current.id !== reply.id) return;
    const done = this.current;
    this.current = null;
    clearTimeout(done.timer);
    done.resolve(reply);
  }

  /** `worker` died or was killed: fail its job in flight; the next job starts a new thread. */
  private fail(worker: Worker, message: string): void {
    if (this.thread === worker) {
      this.thread = null;
      this.ready = null;
    }
    if (this.current?.worker !== worker) return;
    this.finish({ type: 'result', id: this.current.id, ok: false, message });
  }
}

type Pending = { job: JobInput; resolve: (r: SandboxReply) => void };

/** Workers plus fair admission: a free worker takes the next job FairQueue allows. */
class SandboxPool {
  private readonly queue = new FairQueue<Pending>(TEMPLATE_SANDBOX_DEFAULTS, RETRY_AFTER_SECONDS);
  private readonly idle: SandboxWorker[] = [];
  private workers = 0;

  configure(limits: SandboxLimits): void {
    this.queue.setLimits(limits);
    this.pump();
  }

  /** Queues `job` in `lane`; TooManyRequestsError (429) when its queue is full. */
  run(lane: string, job: JobInput): Promise<SandboxReply> {
    return new Promise((resolve) => {
      this.queue.enqueue(lane, { job, resolve });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length > this.queue.poolSize) {
      this.idle.pop()!.retire();
      this.workers -= 1;
    }
    for (;;) {
      if (this.idle.length === 0 && this.workers >= this.queue.poolSize) return;
      const next = this.queue.take();
      if (!next) return;
      let worker = this.idle.pop();
      if (!worker) {
        worker = new SandboxWorker();
        this.workers += 1;
      }
      void this.runOn(worker, next.lane, next.job);
    }
  }

  private async runOn(worker: SandboxWorker, lane: string, pending: Pending): Promise<void> {
    const reply = await worker.run(pending.job);
    this.queue.done(lane);
    this.idle.push(worker);
    pending.resolve(reply);
    this.pump();
  }
}

const pool = new SandboxPool();

/**
 * Sets the sandbox's capacity (config `templates`): pool size, per-lane concurrency, per-lane
 * and total queue lengths. Applies to jobs started from now on; workers over a smaller pool size
 * stop when idle. The pool is process-wide, so the last call wins.
 */
export function configureTemplateSandbox(limits: SandboxLimits): void {
  pool.configure(limits);
}

function renderError(message: string): ValidationError {
  return new ValidationError(message.startsWith('template failed to render') ? message : `template failed to render: ${message}`);
}

/**
 * Renders `model` with an org template `source` in a sandbox worker, queued fairly in `lane`
 * (template-sandbox-lane.ts `sandboxLane`). Returns `{content, contentType}`; throws
 * ValidationError (422) "template failed to render: ..." for any failure (syntax, strict
 * variables, time, memory, output size, a killed worker) and TooManyRequestsError (429,
 * Retry-After) when the lane's queue is full.
 */
export async function renderUntrusted(lane: string, model: ReportModel, format: ReportFormat, source: string): Promise<RenderedReport> {
  const reply = await pool.run(lane, { op: 'render', model, format, source });
  if (!reply.ok) throw renderError(reply.message);
  return { content: reply.content, contentType: reply.contentType as RenderedReport['contentType'] };
}

/**
 * validateTemplateSource (report/render.ts) in a sandbox worker, queued in `lane`;
 * ValidationError (422) on failure, TooManyRequestsError (429) when the lane's queue is full.
 */
export async function validateUntrusted(lane: string, source: string, format: ReportFormat): Promise<void> {
  const reply = await pool.run(lane, { op: 'validate', format, source });
  if (!reply.ok) throw renderError(reply.message);
}
