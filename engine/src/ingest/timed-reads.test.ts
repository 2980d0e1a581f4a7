/**
 * Timed reads (timed-reads.ts): paged reads and sliced mapping give what one read and one
 * flatMap give, in order, whatever the page sizes.
 */
import { describe, expect, it } from 'vitest';
import { flatMapInTimedSlices, readPagesInTimedBatches } from './timed-reads';

const rows = Array.from({ length: 5_321 }, (_, i) => ({ i }));

describe('readPagesInTimedBatches', () => {
  it('returns every record in order, page after page from the cursor it hands out', async () => {
    const calls: { after: number | null; limit: number; offset: number }[] = [];
    const read = await readPagesInTimedBatches<{ i: number }>(Number.POSITIVE_INFINITY, async (after, limit, offset) => {
      calls.push({ after: after?.i ?? null, limit, offset });
      return rows.slice(offset, offset + limit);
    });
    expect(read).toEqual(rows);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls[0]).toMatchObject({ after: null, offset: 0 });
    for (const c of calls.slice(1)) expect(c.after).toBe(c.offset - 1);
  });

  it('stops at `max` and at a short page', async () => {
    expect(await readPagesInTimedBatches(1_000, async (_a, limit, offset) => rows.slice(offset, offset + limit))).toEqual(rows.slice(0, 1_000));
    expect(await readPagesInTimedBatches(10, async (_a, limit, offset) => rows.slice(offset, Math.min(offset + limit, 3)))).toEqual(rows.slice(0, 3));
    expect(await readPagesInTimedBatches(10, async () => [])).toEqual([]);
  });
});

describe('flatMapInTimedSlices', () => {
  it('equals flatMap, slices or not', async () => {
    const fn = (r: { i: number }) => (r.i % 3 === 0 ? [] : r.i % 3 === 1 ? [r.i] : [r.i, -r.i]);
    expect(await flatMapInTimedSlices(rows, fn)).toEqual(rows.flatMap(fn));
    expect(await flatMapInTimedSlices(rows, fn, 0)).toEqual(rows.flatMap(fn));
    expect(await flatMapInTimedSlices([], fn)).toEqual([]);
  });
});
