import { describe, expect, it } from 'vitest';
import { forEachTimedBatch, nextTurn } from './timed-batches';

/** Counts event-loop iterations: an immediate scheduled from an immediate runs in the next one. */
function iterationCounter(): { now: () => number; stop: () => void } {
  let n = 0;
  let on = true;
  const tick = (): void => {
    n += 1;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => n,
    stop: () => {
      on = false;
    },
  };
}

describe('time-sliced work (no event-loop stalls)', () => {
  it('runs one slice per event-loop iteration however many runs share the loop', async () => {
    const loop = iterationCounter();
    const seen: number[] = [];
    const items = Array.from({ length: 12 }, (_, i) => i);
    // Four concurrent ingests, one item per batch: each batch notes the iteration it ran in.
    await Promise.all(
      Array.from({ length: 4 }, () =>
        forEachTimedBatch(
          items,
          async () => {
            seen.push(loop.now());
          },
          { first: 1, min: 1, max: 1 },
        ),
      ),
    );
    loop.stop();
    expect(seen).toHaveLength(48);
    // The first batch of each run starts at once; every later one had a turn of its own.
    const later = seen.slice(4);
    expect(new Set(later).size).toBe(later.length);
  });

  it('covers every item once, in order, with batch offsets, and sizes batches by elapsed time', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const got: number[] = [];
    const sizes: number[] = [];
    await forEachTimedBatch(
      items,
      async (batch, offset) => {
        expect(batch[0]).toBe(offset);
        got.push(...batch);
        sizes.push(batch.length);
      },
      { first: 10, min: 5, max: 400 },
    );
    expect(got).toEqual(items);
    expect(sizes[0]).toBe(10);
    // Near-instant batches grow to the maximum.
    expect(Math.max(...sizes)).toBe(400);
  });

  it('stops at a failing batch and propagates its error', async () => {
    let calls = 0;
    await expect(
      forEachTimedBatch(
        [1, 2, 3],
        async () => {
          calls += 1;
          throw new Error('store failed');
        },
        { first: 1, min: 1 },
      ),
    ).rejects.toThrow('store failed');
    expect(calls).toBe(1);
  });

  it('nextTurn resolves waiters first come, first served', async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((i) => nextTurn().then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3]);
  });
});
