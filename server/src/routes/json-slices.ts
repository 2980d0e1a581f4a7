import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items serialised per event-loop turn: ~100 units (~160 KB of JSON) take a millisecond or two. */
const SLICE = 100;

/**
 * `JSON.stringify(items)` (byte-identical), built slice by slice with an event-loop turn between
 * slices, so a 10 MB ingest reply (analysis-api.md "Ingest": it echoes every unit) never holds
 * the event loop for the whole serialisation (issue 18). Items must be JSON-serialisable plain data.
 */
export async function stringifyArrayInSlices(items: readonly unknown[]): Promise<string> {
  if (items.length <= SLICE) return JSON.stringify(items);
  const parts: string[] = [];
  for (let start = 0; start < items.length; start += SLICE) {
    if (start > 0) await nextTurn();
    const json = JSON.stringify(items.slice(start, start + SLICE));
    parts.push(json.slice(1, -1));
  }
  return `[${parts.join(',')}]`;
}
