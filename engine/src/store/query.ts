/**
 * The port's query language, validated and normalized once for every adapter (DESIGN.md
 * "Storage"). Both adapters call these functions before touching their driver, so an input the
 * SQLite adapter accepts is exactly an input the MongoDB adapter accepts, and vice versa.
 *
 * Invalid input here is a programming error (a typed store built a bad query), so it throws a
 * plain `Error`/`TypeError` (HTTP 500), never an AppError.
 */
import { randomUUID } from 'node:crypto';
import type { Doc, Filter, FindOptions, IndexSpec, JsonValue, SortSpec, Update } from './port';

/** Top-level field prefix reserved for the MongoDB adapter's TTL shadow fields. */
export const RESERVED_PREFIX = '_ttl_';

export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';
export type Cond =
  | { readonly op: 'eq' | 'ne'; readonly value: JsonValue }
  | { readonly op: 'in' | 'nin'; readonly values: readonly JsonValue[] }
  | { readonly op: RangeOp; readonly value: string | number }
  | { readonly op: 'exists'; readonly value: boolean };
/** All conditions on one field path; a filter is the conjunction of its fields. */
export interface FieldFilter {
  readonly path: string;
  readonly conds: readonly Cond[];
}

/** A validated update; every path is distinct and none is a prefix of another. */
export interface ParsedUpdate {
  readonly setOnInsert: ReadonlyMap<string, JsonValue>;
  readonly set: ReadonlyMap<string, JsonValue>;
  readonly unset: readonly string[];
  readonly inc: ReadonlyMap<string, number>;
}

const PATH_RE = /^[A-Za-z0-9_.]+$/;
// Lowercase only: SQLite table and index names are case-insensitive, MongoDB's are not.
const NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;
const INDEX_NAME_RE = /^[a-z0-9_]{1,64}$/;
const RANGE_OPS: Record<string, RangeOp> = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };

/**
 * Throws unless `name` is a valid collection name: a lowercase letter, then lowercase
 * letters, digits and single `_` (at most 63 characters; `__` separates collection and index
 * in SQLite index names), and not `sqlite_*` (reserved by SQLite).
 */
export function assertCollectionName(name: string): void {
  if (typeof name !== 'string' || !NAME_RE.test(name) || name.includes('__') || name.startsWith('sqlite_')) {
    throw new Error(`Invalid collection name: ${JSON.stringify(name)}`);
  }
}

/**
 * Throws unless `path` is a dotted field path of `[A-Za-z0-9_]` segments. All-digit segments
 * are refused (MongoDB reads them as array positions, SQLite as object keys), as are
 * `__proto__` and the reserved top-level prefix `_ttl_`.
 */
export function assertFieldPath(path: string): void {
  const ok =
    typeof path === 'string' &&
    PATH_RE.test(path) &&
    path.split('.').every((s) => s !== '' && !/^\d+$/.test(s) && s !== '__proto__') &&
    !path.startsWith(RESERVED_PREFIX);
  if (!ok) throw new Error(`Invalid field path: ${JSON.stringify(path)}`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Throws a TypeError unless `v` is plain JSON (finite numbers; no Date, undefined in arrays,
 * Map, class instances). Object properties holding `undefined` are allowed and dropped on
 * write by both adapters.
 */
export function assertJson(v: unknown, where: string): asserts v is JsonValue {
  // Fast path: one allocation-free walk for the (overwhelmingly common) valid value; only an
  // invalid one takes the walk below, which builds the error path. Same verdict either way:
  // isJsonValue is at least as strict (it refuses array holes, which the walk below skips).
  if (isJsonValue(v)) return;
  assertJsonSlow(v, where);
}

/** True when `v` is plain JSON (as assertJson, but array holes count as invalid). */
function isJsonValue(v: unknown): boolean {
  if (v === null) return true;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      break;
    default:
      return false;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i += 1) {
      const x: unknown = v[i];
      if (x === undefined || !isJsonValue(x)) return false;
    }
    return true;
  }
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i += 1) {
    const x = v[keys[i]];
    if (x !== undefined && !isJsonValue(x)) return false;
  }
  return true;
}

function assertJsonSlow(v: unknown, where: string): asserts v is JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return;
    throw new TypeError(`${where}: non-finite number`);
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (x === undefined) throw new TypeError(`${where}[${i}]: undefined in array`);
      assertJsonSlow(x, `${where}[${i}]`);
    });
    return;
  }
  if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) if (x !== undefined) assertJsonSlow(x, `${where}.${k}`);
    return;
  }
  throw new TypeError(`${where}: not a JSON value (dates are ISO strings)`);
}

/**
 * Validates a document for insert: plain JSON, `_id` absent or a non-empty string, no
 * top-level key starting with `$` or the reserved `_ttl_`. Throws TypeError.
 */
export function assertDocument(doc: Doc): void {
  if (!isPlainObject(doc)) throw new TypeError('Document must be a plain object');
  if (doc._id !== undefined && (typeof doc._id !== 'string' || doc._id === '')) {
    throw new TypeError('Document _id must be a non-empty string');
  }
  for (const key of Object.keys(doc)) {
    if (key.startsWith('$') || key.startsWith(RESERVED_PREFIX)) {
      throw new TypeError(`Reserved document key: ${JSON.stringify(key)}`);
    }
  }
  assertJson(doc, 'document');
}

function operand(v: unknown, where: string): JsonValue {
  if (v === undefined) throw new TypeError(`${where}: undefined (build filters without it)`);
  assertJson(v, where);
  return v;
}

function list(v: unknown, where: string): JsonValue[] {
  if (!Array.isArray(v)) throw new TypeError(`${where}: expected an array`);
  return v.map((x, i) => operand(x, `${where}[${i}]`));
}

function parseOps(path: string, ops: Record<string, unknown>): Cond[] {
  return Object.entries(ops).map(([op, v]): Cond => {
    const where = `filter ${path}.${op}`;
    if (op === '$eq' || op === '$ne') return { op: op === '$eq' ? 'eq' : 'ne', value: operand(v, where) };
    if (op === '$in' || op === '$nin') return { op: op === '$in' ? 'in' : 'nin', values: list(v, where) };
    if (op === '$exists') {
      if (typeof v !== 'boolean') throw new TypeError(`${where}: expected a boolean`);
      return { op: 'exists', value: v };
    }
    const range = RANGE_OPS[op];
    if (range) {
      if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) {
        throw new TypeError(`${where}: expected a string or a finite number`);
      }
      return { op: range, value: v };
    }
    throw new Error(`Unsupported filter operator ${op} on ${path}`);
  });
}

/**
 * Normalizes a port Filter. A plain object whose keys all start with `$` is an operator set
 * (FieldOps); any other value (including `{}`) means equality. Throws on invalid paths,
 * unknown or mixed operators, `undefined` operands and non-JSON values.
 */
export function parseFilter(filter: Filter): FieldFilter[] {
  if (!isPlainObject(filter)) throw new TypeError('Filter must be a plain object');
  return Object.entries(filter).map(([path, v]) => {
    assertFieldPath(path);
    if (isPlainObject(v)) {
      const keys = Object.keys(v);
      const dollar = keys.filter((k) => k.startsWith('$')).length;
      if (dollar > 0 && dollar < keys.length) throw new Error(`Filter on ${path} mixes operators and fields`);
      if (dollar > 0) return { path, conds: parseOps(path, v) };
    }
    return { path, conds: [{ op: 'eq', value: operand(v, `filter ${path}`) }] };
  });
}

/**
 * The document as stored: `_id` first (the given one, else a random UUID), then the other
 * fields. A shallow copy; the caller's object is not modified.
 */
export function withId<T extends Doc>(doc: T): T & { _id: string } {
  const { _id, ...rest } = doc;
  return { _id: _id ?? randomUUID(), ...rest } as T & { _id: string };
}

/** Throws unless every sort key is a valid path with direction 1 or -1. */
export function assertSort(sort: SortSpec | undefined): void {
  if (sort === undefined) return;
  if (!isPlainObject(sort)) throw new TypeError('Sort must be a plain object');
  for (const [path, dir] of Object.entries(sort)) {
    assertFieldPath(path);
    if (dir !== 1 && dir !== -1) throw new TypeError(`Sort direction of ${path} must be 1 or -1`);
  }
}

/** Validates sort, skip and limit (non-negative integers). */
export function assertFindOptions(options: FindOptions | undefined): void {
  assertSort(options?.sort);
  for (const key of ['skip', 'limit'] as const) {
    const n = options?.[key];
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) {
      throw new TypeError(`${key} must be a non-negative integer`);
    }
  }
}

function isPrefixOrEqual(a: string, b: string): boolean {
  return a === b || b.startsWith(`${a}.`);
}

/**
 * Validates an Update: only `$set`/`$unset`/`$inc`/`$setOnInsert`, valid paths, no `_id`,
 * JSON operands, finite `$inc` amounts, no two paths equal or nested in one another (MongoDB
 * refuses those as conflicts), and at least one field. Throws Error/TypeError.
 */
export function parseUpdate(update: Update): ParsedUpdate {
  if (!isPlainObject(update)) throw new TypeError('Update must be a plain object');
  const allowed = new Set(['$set', '$unset', '$inc', '$setOnInsert']);
  const paths: string[] = [];
  const section = (op: string): [string, unknown][] => {
    const v = (update as Record<string, unknown>)[op];
    if (v === undefined) return [];
    if (!isPlainObject(v)) throw new TypeError(`${op} must be a plain object`);
    const entries = Object.entries(v);
    for (const [path] of entries) {
      assertFieldPath(path);
      if (path === '_id' || path.startsWith('_id.')) throw new Error('_id cannot be updated');
      paths.push(path);
    }
    return entries;
  };
  for (const op of Object.keys(update)) if (!allowed.has(op)) throw new Error(`Unsupported update operator ${op}`);
  const json = (op: string) => new Map(section(op).map(([p, v]) => [p, operand(v, `${op}.${p}`)] as const));
  const setOnInsert = json('$setOnInsert');
  const set = json('$set');
  const unset = section('$unset').map(([p]) => p);
  const inc = new Map(
    section('$inc').map(([p, v]) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`$inc.${p} must be a finite number`);
      return [p, v] as const;
    }),
  );
  if (paths.length === 0) throw new Error('Update has no fields');
  for (const a of paths) {
    for (const b of paths) {
      if (a !== b && isPrefixOrEqual(a, b)) throw new Error(`Update paths ${a} and ${b} conflict`);
    }
    if (paths.indexOf(a) !== paths.lastIndexOf(a)) throw new Error(`Update path ${a} appears twice`);
  }
  return { setOnInsert, set, unset, inc };
}

/**
 * The equality fields of a filter (bare values and `$eq`), in filter order: what an upsert
 * inserts before applying the update, as MongoDB does. Throws if an `_id` equality is not a
 * non-empty string.
 */
export function equalityFields(filter: readonly FieldFilter[]): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  for (const { path, conds } of filter) {
    const eq = conds.find((c) => c.op === 'eq');
    if (eq && eq.op === 'eq' && !out.has(path)) out.set(path, eq.value);
  }
  const id = out.get('_id');
  if (id !== undefined && (typeof id !== 'string' || id === '')) throw new TypeError('Upsert _id must be a non-empty string');
  return out;
}

/**
 * Validates index specs: unique names `[a-z0-9_]{1,64}`, at least one key with direction
 * 1/-1; a TTL index has exactly one top-level (undotted) key, a positive integer
 * `expireAfterSeconds`, and is not unique. Throws Error.
 */
export function assertIndexSpecs(specs: readonly IndexSpec[]): void {
  const names = new Set<string>();
  for (const spec of specs) {
    if (!INDEX_NAME_RE.test(spec.name) || names.has(spec.name)) throw new Error(`Invalid or duplicate index name ${spec.name}`);
    names.add(spec.name);
    assertSort(spec.keys);
    const keys = Object.keys(spec.keys);
    if (keys.length === 0) throw new Error(`Index ${spec.name} has no keys`);
    if (spec.expireAfterSeconds !== undefined) {
      const ok = Number.isSafeInteger(spec.expireAfterSeconds) && spec.expireAfterSeconds > 0;
      if (!ok || keys.length !== 1 || keys[0].includes('.') || keys[0] === '_id' || spec.unique) {
        throw new Error(`TTL index ${spec.name} needs one top-level key, expireAfterSeconds > 0 and no unique`);
      }
    }
  }
}

/** The TTL cutoff for `now`: documents whose timestamp sorts before it are expired. */
export function ttlCutoff(now: Date, expireAfterSeconds: number): Date {
  return new Date(now.getTime() - expireAfterSeconds * 1000);
}
