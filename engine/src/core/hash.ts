/**
 * Unit content hash (analysis-api.md "Analysis unit": `hash` is the stable content hash and the
 * key for analysis submission; "What the service does" 4: units already analysed are skipped).
 *
 * Composition (copy for docs/decisions.md):
 *
 *   hash = lowercase hex SHA-256 over the UTF-8 bytes of
 *          JSON.stringify(["planwarden-unit/1", analyzer, type, name, action, body])
 *   where body has CRLF/CR normalised to LF and is Unicode NFC-normalised; the other four fields
 *   are used verbatim.
 *
 * - In: the producing analyzer's name (the same text read by two analyzers is analysed against
 *   two different rulesets, so it is two units), the unit's type, name (Terraform: full address,
 *   including module path and deposed key), action, and the rendered body.
 * - Out: namespace, org, ingest time, analyzer version, input file name and `metadata` (line
 *   numbers, provider, ...). Re-ingesting the same content therefore yields the same hash in any
 *   namespace; any change to what the model sees (body) or to the identity fields yields a new one.
 * - A JSON array is used rather than a delimiter-joined string so no field value can forge a
 *   field boundary. The "planwarden-unit/1" tag versions the composition itself.
 */
import * as crypto from 'node:crypto';
import type { UnitAction } from './unit';

/** Version tag of the hash composition; bump only with a migration plan for stored hashes. */
export const UNIT_HASH_VERSION = 'planwarden-unit/1';

export interface UnitHashInput {
  readonly analyzer: string;
  readonly type: string;
  readonly name: string;
  readonly action: UnitAction;
  readonly body: string;
}

/** Only code units U+0000..U+007F (JS regex on UTF-16; lone surrogates are not ASCII). */
const NON_ASCII_RE = /[^\u0000-\u007f]/;

/**
 * The body as hashed: CRLF/CR → LF, then NFC. Both steps are skipped when they cannot change
 * the string (no CR; pure ASCII is always in NFC), which yields the same bytes.
 */
export function canonicalBody(body: string): string {
  const lf = body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
  return NON_ASCII_RE.test(lf) ? lf.normalize('NFC') : lf;
}

/** One-shot SHA-256 (crypto.hash, Node ≥ 20.12) with the Hash-object fallback; lowercase hex. */
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(alg: string, data: string, enc: 'hex'): string }).hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Stable content hash of an analysis unit: 64 lowercase hex chars (see the module comment for
 * exactly what is hashed). Pure; never throws.
 */
export function hashUnit(input: UnitHashInput): string {
  const canonical = JSON.stringify([UNIT_HASH_VERSION, input.analyzer, input.type, input.name, input.action, canonicalBody(input.body)]);
  return sha256Hex(canonical);
}
