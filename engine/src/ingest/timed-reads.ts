import { forEachTimedBatch, nextTurn, type TimedBatchOptions } from './timed-batches';

/**
 * Reads the records of `keys` in batches sized by elapsed time (forEachTimedBatch: about 8 ms
 * each, a turn of the event loop between them) and returns what the batches read, in batch
 * order. For reads of thousands of documents (a large namespace's resources, its findings
 * records) that one query would decode in a single stall of a tenth of a second or more. The
 * first batch is small (`options.first`, default 50) since documents can be large. A rejection of
 * `read` propagates.
 */
export async function readInTimedBatches<K, R>(
  keys: readonly K[],
  read: (batch: readonly K[]) => Promise<readonly R[]>,
  options: TimedBatchOptions = {},
): Promise<R[]> {
  const out: R[] = [];
  await forEachTimedBatch(
    keys,
    async (batch) => {
      for (const record of await read(batch)) out.push(record);
    },
    { first: 50, min: 10, ...options },
  );
  return out;
}

/**
 * Reads up to `max` records of one ordered query in pages sized by elapsed time (about
 * `budgetMs`, default 8 ms, of reading per page, a turn of the event loop between pages), and
 * returns them in order. `readPage(after, limit, offset)` returns at most `limit` records
 * following `after`, the last record read so far (null at the start), which is record number
 * `offset` − 1: the query pages by a cursor (a key range after `after`, or an offset over an
 * index that answers the whole filter) instead of decoding every record in one stall.
 * Stops at `max` or at a short page. A rejection of `readPage` propagates.
 */
export async function readPagesInTimedBatches<R>(
  max: number,
  readPage: (after: R | null, limit: number, offset: number) => Promise<readonly R[]>,
  options: TimedBatchOptions = {},
): Promise<R[]> {
  const budget = options.budgetMs ?? 8;
  const min = options.min ?? 50;
  const most = options.max ?? 2000;
  const out: R[] = [];
  let size = options.first ?? 100;
  while (out.length < max) {
    if (out.length > 0) await nextTurn();
    const want = Math.min(size, max - out.length);
    const began = performance.now();
    const page = await readPage(out.length === 0 ? null : out[out.length - 1], want, out.length);
    for (const record of page) out.push(record);
    if (page.length < want) break;
    size = Math.min(most, Math.max(min, Math.round((page.length / Math.max(0.5, performance.now() - began)) * budget)));
  }
  return out;
}

/**
 * `items.flatMap(fn)`, same result, with a turn of the event loop (nextTurn) whenever about
 * `budgetMs` (default 8) of mapping has run: for building a reply's records from thousands of
 * documents just read, which in one go would hold the server for tens of milliseconds.
 */
export async function flatMapInTimedSlices<T, R>(items: readonly T[], fn: (item: T) => readonly R[], budgetMs = 8): Promise<R[]> {
  const out: R[] = [];
  let started = performance.now();
  for (let i = 0; i < items.length; i += 1) {
    for (const r of fn(items[i])) out.push(r);
    if ((i & 63) === 63 && performance.now() - started >= budgetMs) {
      await nextTurn();
      started = performance.now();
    }
  }
  return out;
}
