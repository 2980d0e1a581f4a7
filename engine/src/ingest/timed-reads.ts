import { forEachTimedBatch, type TimedBatchOptions } from './timed-batches';

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
