import { turnIsDue, yieldWhenDue } from '../ingest/timed-batches';

/**
 * Work written once as a generator that `yield`s wherever it may pause, run either to its end in
 * one go (runSteps: the in-process CLI, tests) or in time-sized slices with turns of the event loop
 * between them (runStepsInSlices: the server's routes), so both paths share one implementation and
 * produce the same result.
 */
export type Steps<R> = Generator<void, R, void>;

/** Runs `steps` to its end synchronously and returns its result; throws what it throws. */
export function runSteps<R>(steps: Steps<R>): R {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs `steps` to its end, giving the event loop a turn whenever about `budgetMs` (default 8) of
 * the process's work has run since the last turn (ingest/timed-batches.ts yieldWhenDue: one
 * process-wide budget and FIFO of turns, shared with the store loops and other renders).
 * Resolves with its result; rejects with what it throws.
 */
export async function runStepsInSlices<R>(steps: Steps<R>, budgetMs = 8): Promise<R> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (turnIsDue(budgetMs)) await yieldWhenDue(budgetMs);
  }
}

/** A function of steps as the plain function that runs them in one go (runSteps); null stays null. */
export function inOneGo<A, R>(steps: ((arg: A) => Steps<R>) | null): ((arg: A) => R) | null {
  return steps && ((arg) => runSteps(steps(arg)));
}

/** Items processed between two pause points of the helpers below. */
const STEP_ITEMS = 256;

/**
 * `items.sort(compare)` as steps, same order (a stable bottom-up merge sort over runs each sorted by
 * the built-in stable sort, so equal items keep their input order, as Array.prototype.sort does):
 * sorting tens of thousands of findings in one call would hold the event loop for tens of ms.
 * Sorts `items` in place and returns it.
 */
export function* stableSortSteps<T>(items: T[], compare: (a: T, b: T) => number, run = 2048): Steps<T[]> {
  if (items.length <= run) return items.sort(compare);
  let from: T[] = [];
  for (let start = 0; start < items.length; start += run) {
    for (const item of items.slice(start, start + run).sort(compare)) from.push(item);
    yield;
  }
  let to: T[] = new Array<T>(items.length);
  for (let width = run; width < items.length; width *= 2) {
    let k = 0;
    for (let left = 0; left < items.length; left += 2 * width) {
      const mid = Math.min(left + width, items.length);
      const end = Math.min(left + 2 * width, items.length);
      let i = left;
      let j = mid;
      while (i < mid || j < end) {
        // Ties take the left run first: that is what keeps the sort stable.
        to[k++] = j >= end || (i < mid && compare(from[i], from[j]) <= 0) ? from[i++] : from[j++];
        if (k % STEP_ITEMS === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  for (let n = 0; n < items.length; n += 1) {
    items[n] = from[n];
    if (n % (STEP_ITEMS * 16) === 0) yield;
  }
  return items;
}

/** `items.forEach(fn)` as steps. */
export function* forEachStep<T>(items: readonly T[], fn: (item: T, index: number) => void): Steps<void> {
  for (let i = 0; i < items.length; i += 1) {
    fn(items[i], i);
    if (i % STEP_ITEMS === STEP_ITEMS - 1) yield;
  }
}

/** `items.filter(keep)` as steps. */
export function* filterSteps<T>(items: readonly T[], keep: (item: T) => boolean): Steps<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i += 1) {
    if (keep(items[i])) out.push(items[i]);
    if (i % STEP_ITEMS === STEP_ITEMS - 1) yield;
  }
  return out;
}

/**
 * A document built of many small strings whose pieces are joined a step at a time (`settle`, at
 * each pause point of the steps that build it): joining thousands of pieces, each a tree of
 * concatenations to flatten, in one call at the end held the event loop for milliseconds per
 * megabyte of report. `text()` is the pieces concatenated in order.
 */
export class TextParts {
  private parts: string[] = [];
  private readonly chunks: string[] = [];

  push(piece: string): void {
    this.parts.push(piece);
  }

  /** Joins the pieces pushed since the last settle into one flat chunk. */
  settle(): void {
    if (this.parts.length === 0) return;
    this.chunks.push(this.parts.join(''));
    this.parts = [];
  }

  text(): string {
    this.settle();
    return this.chunks.join('');
  }
}
