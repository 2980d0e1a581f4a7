import { nextTurn } from '@planwarden/engine/ingest/timed-batches';
import type { BodyWriter } from '../http/route';

/** Serialisation work per chunk before the event loop gets a turn, in ms. */
const SLICE_MS = 8;
/** A chunk is written once it holds this many UTF-16 code units, even within SLICE_MS. */
const CHUNK_CHARS = 256 * 1024;

/**
 * Writes `prefix + JSON.stringify(items) + suffix` to `out`, byte-identical to serialising it in
 * one go, but item by item: a chunk is written after SLICE_MS of serialisation (or CHUNK_CHARS),
 * then it waits for its turn (nextTurn: one slice per event-loop iteration across all requests) and for a full socket to drain (BodyWriter), so a 10 MB ingest reply
 * (analysis-api.md "Ingest": it echoes every unit) never holds the event loop, nor is it ever
 * held in memory whole. Items must be JSON-serialisable plain data. Rejects when the
 * client went away (BodyWriter).
 */
export async function writeJsonArray(items: readonly unknown[], out: BodyWriter, prefix = '', suffix = ''): Promise<void> {
  let parts: string[] = [`${prefix}[`];
  let chars = parts[0].length;
  let started = performance.now();
  for (let i = 0; i < items.length; i += 1) {
    const json = JSON.stringify(items[i]) ?? 'null'; // as JSON.stringify renders undefined in an array
    parts.push(i === 0 ? json : `,${json}`);
    chars += json.length;
    if (chars >= CHUNK_CHARS || ((i & 15) === 15 && performance.now() - started >= SLICE_MS)) {
      await out.write(parts.join(''));
      await nextTurn();
      parts = [];
      chars = 0;
      started = performance.now();
    }
  }
  parts.push(`]${suffix}`);
  await out.write(parts.join(''));
}

/**
 * Writes `prefix + "[" + pieces.join("") + "]" + suffix` to `out`, one piece per event-loop turn
 * (nextTurn) and socket drain: the reply of an ingest the worker recorded and serialised
 * (ingest-service.ts recordIngest `json`). Takes the pieces out of `pieces` as it writes them,
 * so a written piece is garbage at once. Rejects when the client went away (BodyWriter).
 */
export async function writeJsonPieces(pieces: string[], out: BodyWriter, prefix = '', suffix = ''): Promise<void> {
  await out.write(`${prefix}[`);
  for (let piece = pieces.shift(); piece !== undefined; piece = pieces.shift()) {
    await nextTurn();
    await out.write(piece);
  }
  await out.write(`]${suffix}`);
}
