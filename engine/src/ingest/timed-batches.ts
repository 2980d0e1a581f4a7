/**
 * Batches sized by elapsed time: long synchronous work, such as writing the units of
 * a 10 MB plan to SQLite, split so that the event loop gets a turn every few milliseconds
 * whatever the machine's speed, with as few batches (hence transactions) as that allows.
 */

/** Work waiting for its turn, first come first served. */
const waiting: (() => void)[] = [];
let scheduled = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    waiting.shift()?.();
    if (waiting.length > 0) schedule();
  });
}

/**
 * Resolves in a later event-loop iteration, one waiter per iteration across the whole process
 * (FIFO): long work that yields with this (store batches, streamed replies) runs one slice per
 * iteration however many requests do it at once, so I/O callbacks (a /health request) wait for
 * one slice, not one slice per concurrent ingest. An immediate scheduled from an
 * immediate runs in the next iteration, after the poll phase.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}

/** When the current stretch of work began (performance.now(), ms), shared by every yieldWhenDue caller. */
let stretchStart = performance.now();

/**
 * Takes a turn (nextTurn) when the work since the last one taken here, by any caller in the
 * process, has run `budgetMs` (default 8) or more; otherwise returns at once. For loops of
 * awaited store calls, which the SQLite and memory stores settle as microtasks and so never let
 * a timer, a socket or another request run on their own (the run loop's units, a unit's triage
 * records).
 */
export async function yieldWhenDue(budgetMs = 8): Promise<void> {
  if (!turnIsDue(budgetMs)) return;
  await nextTurn();
  stretchStart = performance.now();
}

/**
 * Whether yieldWhenDue(`budgetMs`) would take a turn now, without awaiting anything: for loops of
 * many small synchronous steps (a report render), which check it after each step and await
 * yieldWhenDue only when it says so.
 */
export function turnIsDue(budgetMs = 8): boolean {
  return performance.now() - stretchStart >= budgetMs;
}

export interface TimedBatchOptions {
  /** Target duration of one batch, in ms (default 8). */
  readonly budgetMs?: number;
  /** Size of the first batch (default 100), and the bounds of every batch (default 50 and 2000 items). */
  readonly first?: number;
  readonly min?: number;
  readonly max?: number;
}

/**
 * Calls `work` on consecutive slices of `items` (`offset`: index of the slice's first item), in
 * order, awaiting each, with a turn (nextTurn) between slices. Each slice's size
 * comes from the previous one's rate (items per ms) times the budget, within [min, max]. A
 * rejection of `work` ends the run and propagates.
 */
export async function forEachTimedBatch<T>(
  items: readonly T[],
  work: (batch: readonly T[], offset: number) => Promise<void>,
  options: TimedBatchOptions = {},
): Promise<void> {
  const budget = options.budgetMs ?? 8;
  const min = options.min ?? 50;
  const max = options.max ?? 2000;
  let size = options.first ?? 100;
  for (let start = 0; start < items.length; ) {
    if (start > 0) await nextTurn();
    const batch = items.slice(start, start + size);
    const began = performance.now();
    await work(batch, start);
    const rate = batch.length / Math.max(0.5, performance.now() - began);
    start += batch.length;
    size = Math.min(max, Math.max(min, Math.round(rate * budget)));
  }
}
