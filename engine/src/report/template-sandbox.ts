import { Worker } from 'node:worker_threads';
import { ValidationError } from '../errors';
import type { ReportModel } from './model';
import { TEMPLATE_LIMITS, type RenderedReport, type ReportFormat } from './render';
import type { SandboxJob, SandboxReply } from './template-sandbox-impl';

/**
 * Org templates run off the main thread (analysis-api.md "Report templates": rendering is
 * sandboxed; issue 4: a template that loops forever, builds a huge string or reaches for
 * anything but its variables fails with 422 quickly and never stalls the server).
 *
 * LiquidJS's own limits (render/parse/memory, own properties only; report/render.ts) still
 * apply inside the worker; the worker adds what a thread of its own can: the event loop that
 * serves requests never runs template code, a heap cap (`resourceLimits`) and a wall-clock
 * watchdog that terminates the worker (then replaced) if a render outlives its budget.
 * Jobs run one at a time on one worker, in order.
 */

/** Watchdog: LiquidJS's renderLimit plus this grace, then the worker is terminated. */
const WATCHDOG_GRACE_MS = 2_000;
const WORKER_HEAP_MB = 256;

type Pending = { job: SandboxJob; resolve: (r: SandboxReply) => void };
type JobInput = SandboxJob extends infer J ? (J extends SandboxJob ? Omit<J, 'id'> : never) : never;

class SandboxPool {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly queue: Pending[] = [];
  private running: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;

  run(job: JobInput): Promise<SandboxReply> {
    return new Promise((resolve) => {
      this.queue.push({ job: { ...job, id: this.nextId++ } as SandboxJob, resolve });
      void this.pump();
    });
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(new URL('./template-sandbox-worker.mjs', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        stdout: false, stderr: false,
      });
      worker.unref();
      worker.on('message', (msg: SandboxReply | { type: 'ready' }) => {
        if (msg.type === 'ready') { this.worker = worker; resolve(worker); return; }
        this.finish(msg);
      });
      worker.on('error', (error) => {
        if (this.worker !== worker) reject(error);
        this.fail(worker, `template failed to render: ${error.message}`);
      });
      worker.on('exit', () => this.fail(worker, 'template failed to render: sandbox stopped'));
    });
    return this.ready;
  }

  private async pump(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    const next = this.queue.shift()!;
    this.running = next;
    let worker: Worker;
    try {
      worker = await this.start();
    } catch (error) {
      this.ready = null;
      this.finish({ type: 'result', id: next.job.id, ok: false, message: `template sandbox unavailable: ${(error as Error).message}` });
      return;
    }
    this.timer = setTimeout(() => {
      this.fail(worker, `template failed to render: exceeded ${TEMPLATE_LIMITS.renderMs} ms`);
      void worker.terminate();
    }, TEMPLATE_LIMITS.renderMs + WATCHDOG_GRACE_MS);
    this.timer.unref();
    worker.postMessage(next.job);
  }

  private finish(reply: SandboxReply): void {
    if (!this.running || this.running.job.id !== reply.id) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const done = this.running;
    this.running = null;
    done.resolve(reply);
    void this.pump();
  }

  /** The worker died or was killed: fail the job in flight, replace the worker for the rest. */
  private fail(worker: Worker, message: string): void {
    if (this.worker === worker || this.worker === null) { this.worker = null; this.ready = null; }
    if (this.running) this.finish({ type: 'result', id: this.running.job.id, ok: false, message });
  }
}

const pool = new SandboxPool();

/**
 * Renders `model` with an org template `source` in the sandbox worker. Returns
 * `{content, contentType}`; throws ValidationError (422) "template failed to render: ..." for
 * any failure (syntax, strict variables, time, memory, output size, a killed worker).
 */
export async function renderUntrusted(model: ReportModel, format: ReportFormat, source: string): Promise<RenderedReport> {
  const reply = await pool.run({ op: 'render', model, format, source });
  if (!reply.ok) throw new ValidationError(reply.message.startsWith('template failed to render') ? reply.message : `template failed to render: ${reply.message}`);
  return { content: reply.content, contentType: reply.contentType as RenderedReport['contentType'] };
}

/** validateTemplateSource (report/render.ts) in the sandbox worker; ValidationError (422) on failure. */
export async function validateUntrusted(source: string, format: ReportFormat): Promise<void> {
  const reply = await pool.run({ op: 'validate', format, source });
  if (!reply.ok) throw new ValidationError(reply.message.startsWith('template failed to render') ? reply.message : `template failed to render: ${reply.message}`);
}
