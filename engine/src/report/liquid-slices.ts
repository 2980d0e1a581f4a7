import { turnIsDue, yieldWhenDue } from '../ingest/timed-batches';

/**
 * How long a built-in report render may hold the event loop at a time, in ms: a large
 * namespace's Markdown report takes LiquidJS hundreds of milliseconds to seconds, and the
 * requests queued behind it (GET /health included) would wait all that time.
 */
export const RENDER_SLICE_MS = 8;

type Step = { done?: boolean; value: unknown };
type Gen = { next(value?: unknown): Step; throw(error: unknown): Step; return(value?: unknown): Step };

function isIterator(value: unknown): value is Gen {
  const v = value as Partial<Gen> | null;
  return !!v && typeof v.next === 'function' && typeof v.throw === 'function' && typeof v.return === 'function';
}

/**
 * Drives a LiquidJS render generator (`liquid.renderer.renderTemplates(…)`) to its end exactly
 * as liquidjs's `toValueSync` does (a nested generator's result, or its error, goes back into
 * its parent), with an explicit stack instead of recursion, so it can give the event loop back
 * whenever the process's work since its last turn has run `sliceMs` (ingest/timed-batches.ts
 * yieldWhenDue: the process-wide FIFO of turns, so concurrent renders and store loops share one
 * budget and take one slice per event-loop iteration). Resolves with the generator's result;
 * rejects with what the render throws.
 */
export async function driveInSlices(root: unknown, sliceMs: number = RENDER_SLICE_MS): Promise<unknown> {
  if (!isIterator(root)) return root;
  const stack: Gen[] = [root];
  let value: unknown;
  let mode: 'next' | 'throw' = 'next';
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    let step: Step;
    try {
      step = top[mode](value);
    } catch (error) {
      stack.pop();
      if (stack.length === 0) throw error;
      mode = 'throw';
      value = error;
      continue;
    }
    mode = 'next';
    value = step.value;
    if (step.done) stack.pop();
    if (isIterator(value)) {
      stack.push(value);
      value = undefined;
    }
    if (turnIsDue(sliceMs)) await yieldWhenDue(sliceMs);
  }
  return value;
}
