/**
 * Raw ingest bytes → text (analysis-api.md "Ingest and client-led analysis": the ingest body is
 * `text/plain`, but real inputs are not always UTF-8: Windows PowerShell's `>` redirection writes
 * UTF-16LE with a BOM, see corpus tfplan-json/checkov-aws-utf16le-bom-windows.json).
 *
 * Recognised encodings, in order:
 *   1. BOM: EF BB BF → UTF-8; FF FE → UTF-16LE; FE FF → UTF-16BE (the BOM is dropped).
 *   2. No BOM, NUL heuristics over the first 4 KiB: mostly-ASCII UTF-16 text has a NUL in every
 *      other byte. ≥ 30 % NULs at odd offsets and < 5 % at even offsets → UTF-16LE; the mirror
 *      image → UTF-16BE.
 *   3. Otherwise UTF-8 (invalid sequences become U+FFFD; the ingest never fails on encoding).
 * UTF-32 is not recognised (no tool in the corpus writes it). Line endings are left untouched:
 * parsers strip CR themselves where the format allows.
 */

const SAMPLE_BYTES = 4096;
const NUL_MAJORITY = 0.3;
const NUL_MINORITY = 0.05;

type Utf16Order = 'le' | 'be';

/**
 * Decodes an ingest body to a JS string without BOM.
 * Takes a Buffer/Uint8Array (bytes as received) or a string (already decoded by someone else; a
 * leading U+FEFF is stripped and a UTF-16 body mis-decoded as Latin-1 or UTF-8 is repaired on a
 * best-effort basis). Never throws.
 */
export function decodeText(input: Uint8Array | string): string {
  if (typeof input === 'string') return decodeString(input);
  return decodeBytes(input);
}

/** Bytes → string; see the module comment for the detection order. */
function decodeBytes(bytes: Uint8Array): string {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return utf8(bytes.subarray(3));
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return utf16(bytes.subarray(2), 'le');
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return utf16(bytes.subarray(2), 'be');
  const order = sniffUtf16(bytes);
  if (order) return stripBom(utf16(bytes, order));
  return stripBom(utf8(bytes));
}

/** Repairs strings whose bytes were decoded with the wrong charset upstream. */
function decodeString(text: string): string {
  const stripped = stripBom(text);
  if (!stripped.includes('\u0000')) return stripped;
  // Decoded as Latin-1 (every code unit ≤ 0xFF): the original bytes are recoverable exactly.
  if (/^[\u0000-\u00ff]*$/.test(text)) return decodeBytes(Buffer.from(text, 'latin1'));
  // Decoded as UTF-8: the BOM became U+FFFD U+FFFD and ASCII survived with NULs between; drop both.
  const sample = Buffer.from(stripped.replace(/^\ufffd\ufffd/, '').slice(0, SAMPLE_BYTES), 'latin1');
  if (sniffUtf16(sample)) return stripped.replace(/^\ufffd\ufffd/, '').replace(/\u0000/g, '');
  return stripped;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

function utf16(bytes: Uint8Array, order: Utf16Order): string {
  const even = bytes.length - (bytes.length % 2);
  const body = Buffer.from(bytes.subarray(0, even));
  if (order === 'be') body.swap16();
  return body.toString('utf16le');
}

/** NUL-byte heuristics for BOM-less UTF-16; null when the sample does not look like UTF-16. */
function sniffUtf16(bytes: Uint8Array): Utf16Order | null {
  const n = Math.min(bytes.length, SAMPLE_BYTES) & ~1;
  if (n < 4) return null;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenNul += 1;
    if (bytes[i + 1] === 0) oddNul += 1;
  }
  const pairs = n / 2;
  if (oddNul / pairs >= NUL_MAJORITY && evenNul / pairs < NUL_MINORITY) return 'le';
  if (evenNul / pairs >= NUL_MAJORITY && oddNul / pairs < NUL_MINORITY) return 'be';
  return null;
}
