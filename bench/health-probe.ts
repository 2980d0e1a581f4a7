/**
 * A GET /health prober with an event loop of its own (a worker thread), for benches that load a
 * server from the same process: the load generator's own stalls (encoding and sending large
 * bodies, parsing replies, a fake provider) never delay a probe, so what it measures is the
 * server's answer time as a separate client sees it.
 */
import { Worker } from 'node:worker_threads';

/** One probe: when it started (epoch ms), how long the answer took (ms; NaN: no answer) and its HTTP status (0: none). */
export interface HealthSample {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
}

export interface HealthProbe {
  /** Ends the probing after the call in flight; `samples` then resolves. */
  stop(): void;
  /** Every probe's sample, in order, once probing ended (`count` reached or `stop`). */
  readonly samples: Promise<HealthSample[]>;
}

const PROBER = `
  const { parentPort, workerData } = require('node:worker_threads');
  let stopped = false;
  parentPort.on('message', () => { stopped = true; });
  (async () => {
    const out = [];
    while (!stopped && (workerData.count === null || out.length < workerData.count)) {
      const at = Date.now();
      const start = performance.now();
      try {
        const res = await fetch(workerData.url + '/health');
        await res.arrayBuffer();
        out.push({ at, ms: performance.now() - start, status: res.status });
      } catch {
        out.push({ at, ms: Number.NaN, status: 0 });
      }
      const next = start + workerData.everyMs;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
    parentPort.postMessage(out);
    parentPort.close();
  })();
`;

/**
 * Calls `${url}/health` one call at a time, a call every `everyMs` (or right after the previous
 * answer when that took longer), until `count` calls were made (null: until `stop`). A call that
 * fails is recorded with `ms` NaN and status 0.
 */
export function probeHealth(url: string, options: { everyMs: number; count: number | null }): HealthProbe {
  const worker = new Worker(PROBER, { eval: true, workerData: { url, everyMs: options.everyMs, count: options.count } });
  const samples = new Promise<HealthSample[]>((resolve, reject) => {
    worker.once('message', (out: HealthSample[]) => resolve(out));
    worker.once('error', reject);
  });
  return { stop: () => worker.postMessage('stop'), samples };
}
