import { randomUUID } from 'node:crypto';
import { nextTurn } from '@planwarden/engine/ingest/timed-batches';
import type { BodyWriter } from '../http/route';

/** Serialisation work per chunk before the event loop gets a turn, in ms. */
const SLICE_MS = 8;
/** A chunk is written once it holds this many UTF-16 code units, even within SLICE_MS. */
const CHUNK_CHARS = 256 * 1024;

/**
 * Writes `prefix + JSON.stringify(items) + suffix` to `out` (with `indent`, the array as
 * JSON.stringify(…, null, indent.space) prints it on a line indented `indent.line`),
 * byte-identical to serialising it in one go, but item by item: a chunk is written after
 * SLICE_MS of serialisation (or CHUNK_CHARS), then it waits for its turn (nextTurn: one slice per
 * event-loop iteration across all requests) and for a full socket to drain (BodyWriter), so a
 * 10 MB ingest reply (analysis-api.md "Ingest": it echoes every unit) never holds the event loop,
 * nor is it ever held in memory whole. Items must be JSON-serialisable plain data. Rejects when
 * the client went away (BodyWriter).
 */
export function writeJsonArray(items: readonly unknown[], out: BodyWriter, prefix = '', suffix = '', indent?: ArrayIndent): Promise<void> {
  return writeJsonArrayPages([items], out, prefix, suffix, indent);
}

/**
 * As writeJsonArray, for the array made of `pages` concatenated, read one page at a time: each
 * page is serialised and written (with a turn of the event loop after it) before the next is
 * asked for, so a reply of thousands of documents is never held in memory whole (a heap that size
 * costs collections of hundreds of milliseconds). A rejection of `pages` propagates.
 */
export async function writeJsonArrayPages(
  pages: AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]>,
  out: BodyWriter,
  prefix = '',
  suffix = '',
  indent?: ArrayIndent,
): Promise<void> {
  // Pretty-printed, an item's own lines sit one level deeper than the array: JSON text has no raw
  // line breaks inside strings, so indenting after each '\n' matches JSON.stringify's nesting.
  const inner = indent ? `\n${indent.line}${indent.space}` : '';
  const item = (value: unknown): string => {
    const json = (indent ? JSON.stringify(value, null, indent.space) : JSON.stringify(value)) ?? 'null'; // as JSON.stringify renders undefined in an array
    return indent ? inner + json.replaceAll('\n', inner) : json;
  };
  let count = 0;
  let parts: string[] = [`${prefix}[`];
  let chars = parts[0].length;
  let started = performance.now();
  const flush = async () => {
    await out.write(parts.join(''));
    await nextTurn();
    parts = [];
    chars = 0;
    started = performance.now();
  };
  for await (const page of pages) {
    // A turn after each page's items, before the next page is read (nothing to write before the first item).
    if (count > 0 && parts.length > 0) await flush();
    for (let i = 0; i < page.length; i += 1) {
      const json = item(page[i]);
      parts.push(count === 0 ? json : `,${json}`);
      count += 1;
      chars += json.length;
      if (chars >= CHUNK_CHARS || ((i & 15) === 15 && performance.now() - started >= SLICE_MS)) await flush();
    }
  }
  if (count === 0) {
    await out.write(`${prefix}[]${suffix}`);
    return;
  }
  parts.push(`${indent ? `\n${indent.line}` : ''}]${suffix}`);
  await out.write(parts.join(''));
}

/**
 * Writes `prefix + "[" + every text of `pages`, comma-separated + "]" + suffix` to `out`: items
 * already serialised (GET /findings' records from their stored JSON, finding-view.ts), one page
 * per write, with a turn of the event loop (nextTurn) after each before the next page is taken.
 * Rejects when the client went away (BodyWriter).
 */
export async function writeJsonTextPages(pages: Iterable<readonly string[]>, out: BodyWriter, prefix = '', suffix = ''): Promise<void> {
  let opened = false;
  for (const page of pages) {
    if (page.length === 0) continue;
    await out.write(`${opened ? ',' : `${prefix}[`}${page.join(',')}`);
    opened = true;
    await nextTurn();
  }
  await out.write(opened ? `]${suffix}` : `${prefix}[]${suffix}`);
}

/** A marker for writeJsonAround, random per process so that no stored text can hold it. */
export const STREAMED_ARRAY = `planwarden-streamed-array-${randomUUID()}`;

/** How a pretty-printed array sits in its document: the indentation unit and the indentation of the line that opens it. */
export interface ArrayIndent {
  readonly space: string;
  readonly line: string;
}

/**
 * Writes `JSON.stringify(value, null, space)` (compact when `space` is '') plus `suffix` to `out`,
 * byte for byte, with the one large array of `value` streamed item by item (writeJsonArray):
 * `value` holds `marker` (a string found nowhere else in it) where the array goes, and `items` is
 * that array. The rest of `value` is serialised in one go, so it must be small. Throws Error when
 * `marker` is not in `value` exactly once; rejects when the client went away (BodyWriter).
 */
export async function writeJsonAround(value: unknown, marker: string, items: readonly unknown[], out: BodyWriter, space = '', suffix = ''): Promise<void> {
  const text = JSON.stringify(value, null, space);
  const quoted = JSON.stringify(marker);
  const at = text.indexOf(quoted);
  if (at === -1 || text.indexOf(quoted, at + 1) !== -1) throw new Error('writeJsonAround: the marker must appear exactly once');
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const indent = space === '' ? undefined : { space, line: /^[ \t]*/.exec(text.slice(lineStart, at))?.[0] ?? '' };
  await writeJsonArray(items, out, text.slice(0, at), text.slice(at + quoted.length) + suffix, indent);
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

/**
 * Writes `prefix + text + suffix` to `out`, or with `json`, `prefix + JSON.stringify(text) +
 * suffix`, byte for byte, in chunks of CHUNK_CHARS with a turn of the event loop (nextTurn) and a
 * socket drain between them: a 10 MB report sent in one go (escaped, encoded and hashed for its
 * ETag) would hold the event loop for tens of milliseconds. A chunk never ends between the two
 * halves of a surrogate pair, so each chunk encodes (and escapes) as it does within the whole.
 * Rejects when the client went away (BodyWriter).
 */
export async function writeTextInChunks(text: string, out: BodyWriter, options: { json?: boolean; prefix?: string; suffix?: string } = {}): Promise<void> {
  const piece = (from: number, to: number) => (options.json ? JSON.stringify(text.slice(from, to)).slice(1, -1) : text.slice(from, to));
  let chunk = `${options.prefix ?? ''}${options.json ? '"' : ''}`;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    chunk += piece(start, end);
    start = end;
    if (start < text.length) {
      await out.write(chunk);
      await nextTurn();
      chunk = '';
    }
  }
  await out.write(`${chunk}${options.json ? '"' : ''}${options.suffix ?? ''}`);
}
