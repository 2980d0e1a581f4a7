/**
 * Turns of the event loop inside long store-bound work. The SQLite and memory stores settle their
 * calls as microtasks, so a loop of awaited store calls never lets a timer, a socket or another
 * request run until it ends (docs/decisions.md "Event loop slices": no request holds the loop for
 * more than ~20 ms).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** When the current stretch of work began (performance.now(), ms), shared by every caller in the process. */
let stretchStart = performance.now();

/**
 * Yields one turn of the event loop when the work since the last yield (by any caller) has run
 * for `budgetMs` milliseconds or more; otherwise returns at once. Awaiting callers resume in
 * order after other pending I/O and timers have run.
 */
export async function yieldWhenDue(budgetMs = 8): Promise<void> {
  if (performance.now() - stretchStart < budgetMs) return;
  await nextTurn();
  stretchStart = performance.now();
}
