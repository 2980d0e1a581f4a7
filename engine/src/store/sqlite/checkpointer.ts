/**
 * WAL checkpoints off the event loop. With SQLite's automatic checkpoint, the commit
 * that takes the write-ahead log past 1000 pages copies them into the database and fsyncs both
 * files, synchronously, on the thread that serves requests: during a 10 MB ingest that is several
 * stalls of tens of ms each. Here the connection's own automatic checkpoint is raised to a safety
 * bound (WAL_SAFETY_PAGES) and a worker thread with its own connection to the same file runs
 * PASSIVE checkpoints (https://sqlite.org/c3ref/wal_checkpoint_v2.html: never blocks writers or
 * readers) whenever the WAL has grown past WAL_CHECKPOINT_BYTES. The worker starts on first need
 * only, so small databases (tests, short-lived tools) never start a thread; if it cannot start
 * the connection goes back to SQLite's default automatic checkpoint.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The worker's WAL size trigger, in bytes (SQLite's own default is 1000 pages, ~4 MB). */
export const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** The connection's automatic checkpoint while the worker runs (pages): a bound if the worker falls behind. */
export const WAL_SAFETY_PAGES = 16_384;
/** The WAL size is looked at most this often (ms). */
const CHECK_EVERY_MS = 100;

// Plain CommonJS (an `eval` worker): no loader, works the same from TypeScript and from a bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
parentPort.on('message', (message) => {
  if (message === 'close') { db.close(); parentPort.close(); return; }
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  parentPort.postMessage('done');
});
`;

export class WalCheckpointer {
  readonly #wal: string;
  readonly #file: string;
  readonly #setAutoCheckpoint: (pages: number) => void;
  #worker: Worker | null = null;
  #failed = false;
  #running = false;
  #checkedAt = -Infinity;
  #timer: NodeJS.Timeout | null = null;

  /**
   * `file`: the database file (its WAL is `${file}-wal`); `setAutoCheckpoint` sets the owning
   * connection's `PRAGMA wal_autocheckpoint` (pages).
   */
  constructor(file: string, setAutoCheckpoint: (pages: number) => void) {
    this.#file = file;
    this.#wal = `${file}-wal`;
    this.#setAutoCheckpoint = setAutoCheckpoint;
  }

  /**
   * Call after every committed write (cheap: a clock read; the WAL is stat'ed at most every
   * CHECK_EVERY_MS, and once more after a burst of writes ends).
   */
  afterWrite(): void {
    if (this.#failed || this.#running || this.#timer) return;
    const wait = CHECK_EVERY_MS - (performance.now() - this.#checkedAt);
    if (wait > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#check();
      }, wait);
      this.#timer.unref();
      return;
    }
    this.#check();
  }

  #check(): void {
    if (this.#failed || this.#running) return;
    this.#checkedAt = performance.now();
    let size = 0;
    try {
      size = statSync(this.#wal).size;
    } catch {
      return;
    }
    if (size < WAL_CHECKPOINT_BYTES) return;
    const worker = this.#start();
    if (!worker) return;
    this.#running = true;
    worker.postMessage('checkpoint');
  }

  /**
   * Stops the worker: it closes its connection after a checkpoint in progress. Resolves once the
   * thread has exited, so the caller can remove the database directory: a connection still open
   * there (re)creates the `-wal`/`-shm` files.
   */
  close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#failed = true;
    const worker = this.#worker;
    this.#worker = null;
    if (!worker) return Promise.resolve();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Held until it exits: with the thread unref'd, a process with nothing else to do would end
    // inside this await (exit code 13, unsettled top-level await).
    worker.ref();
    worker.postMessage('close');
    return exited;
  }

  #start(): Worker | null {
    if (this.#worker) return this.#worker;
    try {
      const driver = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file: this.#file } });
      worker.unref();
      worker.on('message', () => {
        this.#running = false;
      });
      worker.on('error', () => this.#fallBack());
      worker.on('exit', () => {
        if (this.#worker === worker) this.#fallBack();
      });
      this.#worker = worker;
      this.#setAutoCheckpoint(WAL_SAFETY_PAGES);
      return worker;
    } catch {
      this.#fallBack();
      return null;
    }
  }

  /** Back to SQLite's default: the connection checkpoints by itself every 1000 pages. */
  #fallBack(): void {
    this.#failed = true;
    this.#running = false;
    this.#worker = null;
    try {
      this.#setAutoCheckpoint(1000);
    } catch {
      // connection already closed
    }
  }
}
