/**
 * Update operators applied in JS to a parsed document (the SQLite adapter reads, modifies and
 * writes inside one transaction). Mirrors MongoDB: intermediate objects are created for
 * dotted `$set`/`$inc`; traversing a non-object (scalar, null or array) throws, as MongoDB
 * refuses "Cannot create field"; `$inc` on a non-number throws; `$unset` of an absent path
 * is a no-op.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../port';
import type { ParsedUpdate } from '../query';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parentOf(doc: Obj, path: string, create: boolean): { parent: Obj; key: string } | undefined {
  const segs = path.split('.');
  const key = segs.pop() as string;
  let cur: Obj = doc;
  for (const seg of segs) {
    const next = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    if (next === undefined) {
      if (!create) return undefined;
      cur[seg] = {};
    } else if (!isObj(next)) {
      if (!create) return undefined;
      throw new Error(`Cannot create field ${path}: ${seg} is not an object`);
    }
    cur = cur[seg] as Obj;
  }
  return { parent: cur, key };
}

function setPath(doc: Obj, path: string, value: JsonValue): void {
  const at = parentOf(doc, path, true) as { parent: Obj; key: string };
  // Clone so later updates of this document never alias the caller's update object.
  at.parent[at.key] = structuredClone(value);
}

/**
 * Applies `update` to `doc` in place, in the port's order: `$setOnInsert` (only when
 * `inserting`), `$set`, `$unset`, `$inc`. Throws Error on impossible paths or `$inc` of a
 * non-number.
 */
export function applyUpdate(doc: Obj, update: ParsedUpdate, inserting: boolean): Obj {
  if (inserting) for (const [p, v] of update.setOnInsert) setPath(doc, p, v);
  for (const [p, v] of update.set) setPath(doc, p, v);
  for (const p of update.unset) {
    const at = parentOf(doc, p, false);
    if (at) delete at.parent[at.key];
  }
  for (const [p, n] of update.inc) {
    const at = parentOf(doc, p, true) as { parent: Obj; key: string };
    const cur = Object.hasOwn(at.parent, at.key) ? at.parent[at.key] : undefined;
    if (cur === undefined) at.parent[at.key] = n;
    else if (typeof cur === 'number') at.parent[at.key] = cur + n;
    else throw new Error(`Cannot apply $inc to non-numeric field ${p}`);
  }
  return doc;
}

/**
 * The document an upsert inserts: `_id` (from the filter's `_id` equality, else a random
 * UUID) followed by the filter's equality fields, dotted paths expanded; the caller then
 * applies the update with `inserting = true`.
 */
export function upsertBase(equality: ReadonlyMap<string, JsonValue>): Obj {
  const id = equality.get('_id');
  const doc: Obj = { _id: typeof id === 'string' ? id : randomUUID() };
  for (const [p, v] of equality) if (p !== '_id') setPath(doc, p, v);
  return doc;
}

/**
 * Dotted paths at which `doc` holds an array (not descending into arrays): the filter
 * translation adds a json_each branch for those paths only.
 */
export function arrayPathsOf(doc: Obj, prefix = '', out: string[] = []): string[] {
  const found = new Set<string>();
  collectArrayPaths(doc, prefix, found);
  out.push(...found);
  return out;
}

/** arrayPathsOf into a Set (to collect the paths of many documents without duplicates). */
export function collectArrayPaths(doc: Obj, prefix: string, out: Set<string>): void {
  for (const k in doc) {
    const v = doc[k];
    // Scalars (most keys) first: no path string built, no segment check (this walks
    // every key of every document written).
    if (v === null || typeof v !== 'object' || !Object.hasOwn(doc, k)) continue;
    if (!isFieldSegment(k)) continue; // not addressable by a field path
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (Array.isArray(v)) out.add(path);
    else collectArrayPaths(v as Obj, path, out);
  }
}

/** `/^[A-Za-z0-9_]+$/` without the regex (called for every key of every written document). */
function isFieldSegment(k: string): boolean {
  if (k.length === 0) return false;
  for (let i = 0; i < k.length; i += 1) {
    const c = k.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
    if (!ok) return false;
  }
  return true;
}
