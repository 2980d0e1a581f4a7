/**
 * The API view of a triage record (analysis-api.md "Finding record"), as an object
 * (presentFinding) or, for GET /findings, as JSON text taken from the stored record without a
 * parse/stringify round trip (docs/decisions.md "Raw-JSON reads").
 *
 * A record written by FindingStore.observe has the stored layout of newFindingDoc:
 * `{"_id":…,"org_id":…,"confidence":…,"resource_hash":…, … ,"updated_at":…}`. Its text from
 * `resource_hash` on is exactly `JSON.stringify(presentFinding(record))` without the opening
 * brace: the sqlite adapter stores `JSON.stringify(doc)`, whose values are the ones the parse
 * would give back, and a write keeps every key it sets in place and appends a key the record
 * lacked. So `findingJson` serves that tail when the text begins with newFindingDoc's head
 * (`_id`, `org_id`, `confidence`, then `resource_hash`: no other writer puts `confidence`
 * third) and `updated_at` is still its last key (nothing appended since); otherwise (a record
 * written before the layout existed, a field some later write appended, a backend with another
 * key order) it takes the round trip through presentFinding. Either way the bytes are the same;
 * the tests compare both paths over every status, severity and filter, and the fallback over
 * the old layout and an appended field.
 */
import { FINDING_API_FIELDS, type FindingDoc } from './finding-store';

/** analysis-api.md "Finding record" presenter (explicit allow-list, FINDING_API_FIELDS order). */
export function presentFinding(f: FindingDoc) {
  return {
    resource_hash: f.resource_hash,
    rule_id: f.rule_id,
    resource_address: f.resource_address,
    severity: f.severity,
    title: f.title,
    status: f.status,
    first_seen: f.first_seen,
    last_seen: f.last_seen,
    occurrence_count: f.occurrence_count,
    note: f.note,
    updated_by: f.updated_by,
    updated_at: f.updated_at,
  };
}

// A JSON string token (any escapes), as JSON.stringify writes it (unrolled: no per-character alternation).
const STRING = '"[^"\\\\]*(?:\\\\.[^"\\\\]*)*"';
/** newFindingDoc's head up to the first API key; its length is where the API object's fields begin. */
const HEAD = new RegExp(`^\\{"_id":${STRING},"org_id":${STRING},"confidence":"[A-Z]+",(?="resource_hash":)`);
const LAST_KEY = `,"${FINDING_API_FIELDS[FINDING_API_FIELDS.length - 1]}":`;
/** After the last key: its value (null or an ISO timestamp, no escapes) and the closing brace. */
const LAST_VALUE = /^(?:null|"[^"\\]*")\}$/;

/**
 * The offset in `stored` where the API fields begin, or -1 when the text does not have the
 * stored layout. Inside a JSON string every `"` is escaped, so the `,"updated_at":` that
 * lastIndexOf finds is a key of the (flat) record, never text inside a value.
 */
function apiFieldsStart(stored: string): number {
  const head = HEAD.exec(stored);
  if (head === null) return -1;
  const last = stored.lastIndexOf(LAST_KEY);
  if (last < head[0].length || !LAST_VALUE.test(stored.slice(last + LAST_KEY.length))) return -1;
  return head[0].length;
}

/**
 * One finding as the API's JSON text (`JSON.stringify(presentFinding(record))`, byte for byte)
 * from the record's stored JSON text (FindingStore.listRawJson). Throws SyntaxError only when
 * `stored` is not JSON (a corrupt store).
 */
export function findingJson(stored: string): string {
  const start = apiFieldsStart(stored);
  if (start >= 0) return `{${stored.slice(start)}`;
  return JSON.stringify(presentFinding(JSON.parse(stored) as FindingDoc));
}

/**
 * GET /findings body (analysis-api.md "Findings and review feedback": `{findings:[...]}`) from the
 * stored JSON text of a page of records, byte-identical to `JSON.stringify({findings: records.map(presentFinding)})`.
 */
export function findingsPageJson(stored: readonly string[]): string {
  let body = '{"findings":[';
  for (let i = 0; i < stored.length; i += 1) body += (i === 0 ? '' : ',') + findingJson(stored[i]);
  return `${body}]}`;
}
