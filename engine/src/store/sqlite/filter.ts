/**
 * Port filters and sorts to SQL over `json_extract(doc, '$.path')`, or over the path's hot
 * column where it has one (columns.ts: the same value, so everything below holds for both)
 * (DESIGN.md "Storage").
 *
 * Semantics follow MongoDB so one conformance suite holds for both adapters:
 * - comparisons are type-bracketed: a number never equals a string or a boolean;
 * - `$eq: null` matches null and absent; `$ne`/`$nin` match absent; `$exists` is "present
 *   and not null" (the port's definition);
 * - on a field holding an array, every operator also matches when some element matches
 *   (json_each). Only paths known to have held an array somewhere in the collection get that
 *   branch, so equality on an indexed scalar field stays an index lookup.
 * Field paths are validated (query.ts) and inlined as literals, so the expression is
 * identical to the one in the expression index; values are always bound parameters.
 *
 * The SQL is built as plain text with `?` placeholders (no query builder on the read path):
 * the same filter shape always yields the same text, so the connection's prepared-statement
 * cache (keyed by that text) serves every later query of that shape.
 *
 * Type brackets without reading the document. `json_extract` returns SQL NULL for a JSON
 * null or an absent field, INTEGER 1/0 for true/false, INTEGER/REAL for numbers, TEXT for
 * strings and TEXT (the minified JSON, starting with `[` or `{`) for arrays and objects. The
 * expression and a bound parameter both have no affinity, so SQLite compares them without
 * conversion: a number never equals a TEXT, and every INTEGER/REAL sorts before every TEXT.
 * A `json_type(doc, ...)` check reads the document (no expression index answers it), so it is
 * added only where the comparison alone could admit a value of another JSON type, and where
 * possible behind an index-answered guard so that only the ambiguous candidates are read:
 * - string operand: only TEXT can equal it; that TEXT is an array/object only if the operand
 *   starts with `[` or `{` (checked then; in a list, only candidates starting so are read);
 * - number operand: only INTEGER/REAL can equal it; that is a boolean only if the operand is
 *   0 or 1 (checked then; in a list, only candidates equal to 0 or 1 are read);
 * - a number range admits every TEXT for `$gt`/`$gte` (bounded by `< ''`, '' being the least
 *   TEXT, which the index answers) and booleans when 0 or 1 is in range (only candidates
 *   equal to 0 or 1 are read); a string range admits every number and boolean for
 *   `$lt`/`$lte` (bounded by `>= ''`) and array/object text when the range reaches `[` or `{`
 *   (only candidates starting with `[` or `{` are read);
 * - booleans, objects and arrays always get the check; so do `_id` (a TEXT column: its
 *   affinity would convert a number operand) and json_each elements (their type is a column).
 * The conformance suite's type-strictness tests cover each of these cases.
 */
import { sql } from 'kysely';
import type { JsonValue, SortSpec } from '../port';
import type { Cond, FieldFilter, RangeOp } from '../query';
import { columnName } from './columns';
import type { Sql } from './connection';

const DOC = sql.raw('doc');

/**
 * `json_extract(<docExpr>, '$.<path>')` as a kysely fragment, for DDL (indexes, triggers):
 * the same expression `extractSql` writes into queries, so the planner matches the indexes.
 * `_id` on the table itself is the primary-key column.
 */
export function extract(path: string, docExpr: Sql = DOC): Sql {
  return path === '_id' && docExpr === DOC ? sql.raw('_id') : sql`json_extract(${docExpr}, ${sql.lit(`$.${path}`)})`;
}

const NO_COLUMNS: ReadonlySet<string> = new Set();

/**
 * The value of field `path` as SQL text: `_id`, the path's hot column (columns.ts) when it has
 * one, else `json_extract(doc, '$.<path>')`; `path` must be validated.
 */
export function extractSql(path: string, columns: ReadonlySet<string> = NO_COLUMNS): string {
  if (path === '_id') return '_id';
  return columns.has(path) ? columnName(path) : `json_extract(doc, '$.${path}')`;
}

/** SQL text plus its positional parameters, in order. */
export interface SqlText {
  readonly sql: string;
  readonly params: unknown[];
}

/** A value and its JSON type: a document field, or one array element from json_each. */
interface Operand {
  readonly value: string;
  readonly type: string;
  /** Array elements have no "absent" state: null matches only a JSON null. */
  readonly element: boolean;
  /** A document field: type checks only where the comparison alone is ambiguous (see top). */
  readonly minimal: boolean;
}

function fieldOperand(path: string, columns: ReadonlySet<string>): Operand {
  if (path === '_id') return { value: '_id', type: `'text'`, element: false, minimal: false };
  return { value: extractSql(path, columns), type: `json_type(doc, '$.${path}')`, element: false, minimal: true };
}
const ELEMENT: Operand = { value: 'je.value', type: 'je.type', element: true, minimal: false };
const NUMERIC = `('integer', 'real')`;

/** True when a TEXT equal to `s` could be an array or object rendered by json_extract. */
function containerLike(s: string): boolean {
  const c = s.charCodeAt(0);
  return c === 0x5b /* [ */ || c === 0x7b /* { */;
}
/** True when a number equal to `n` could be a boolean (json_extract renders true/false as 1/0). */
const boolLike = (n: number): boolean => n === 0 || n === 1;

/**
 * `AND`-ed after a comparison that may admit booleans: only a candidate whose extracted value
 * is 0 or 1 has its type read (SQLite evaluates OR left to right and stops at a true operand;
 * the left one is computed from the index).
 */
const notBoolean = (o: Operand): string => `(${o.value} NOT IN (0, 1) OR ${o.type} IN ${NUMERIC})`;
/** As notBoolean, for a comparison that may admit array/object text: only `[`/`{` candidates are read. */
const notContainer = (o: Operand): string => `(substr(${o.value}, 1, 1) NOT IN ('[', '{') OR ${o.type} = 'text')`;

function eqOne(o: Operand, v: JsonValue, params: unknown[]): string {
  if (v === null) return o.element ? `${o.type} = 'null'` : `${o.value} IS NULL`;
  if (typeof v === 'string') {
    params.push(v);
    return o.minimal && !containerLike(v) ? `${o.value} = ?` : `(${o.value} = ? AND ${o.type} = 'text')`;
  }
  if (typeof v === 'number') {
    params.push(v);
    return o.minimal && !boolLike(v) ? `${o.value} = ?` : `(${o.value} = ? AND ${o.type} IN ${NUMERIC})`;
  }
  if (typeof v === 'boolean') {
    params.push(v ? 1 : 0);
    return `(${o.value} = ? AND ${o.type} = '${v ? 'true' : 'false'}')`;
  }
  // Objects and arrays compare as minified JSON text (key order matters, as in MongoDB).
  params.push(JSON.stringify(v));
  return `(${o.value} = json(?) AND ${o.type} = '${Array.isArray(v) ? 'array' : 'object'}')`;
}

const placeholders = (n: number): string => (n === 1 ? '?' : `?${', ?'.repeat(n - 1)}`);

/**
 * Lists longer than this are bound as one JSON array that `json_each` reads back: SQLite refuses
 * a statement with more than 32,766 parameters (an `$in` over a large namespace's resources
 * would fail), and every list length would otherwise be its own statement text, prepared anew.
 */
export const INLINE_LIST_MAX = 64;

/**
 * The right-hand side of `IN` for `values` (all strings or all numbers), parameters appended:
 * `(?, ?, …)`, or `(SELECT value FROM json_each(?))` for a long list. json_each yields each
 * element as TEXT (string) or INTEGER/REAL (number), the values the placeholders would bind.
 */
function listSql(values: readonly (string | number)[], params: unknown[]): string {
  if (values.length <= INLINE_LIST_MAX) {
    params.push(...values);
    return `(${placeholders(values.length)})`;
  }
  params.push(JSON.stringify(values));
  return '(SELECT value FROM json_each(?))';
}

function inList(o: Operand, values: readonly JsonValue[], params: unknown[]): string {
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const terms: string[] = [];
  // One IN per type keeps a single index-usable term for the common all-strings case.
  if (strings.length > 0) {
    const test = `${o.value} IN ${listSql(strings, params)}`;
    if (!o.minimal) terms.push(`(${test} AND ${o.type} = 'text')`);
    else terms.push(strings.some(containerLike) ? `(${test} AND ${notContainer(o)})` : test);
  }
  if (numbers.length > 0) {
    const test = `${o.value} IN ${listSql(numbers, params)}`;
    if (!o.minimal) terms.push(`(${test} AND ${o.type} IN ${NUMERIC})`);
    else terms.push(numbers.some(boolLike) ? `(${test} AND ${notBoolean(o)})` : test);
  }
  for (const v of values) if (typeof v !== 'string' && typeof v !== 'number') terms.push(eqOne(o, v, params));
  if (terms.length === 0) return '0';
  return terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`;
}

const RANGE_SQL: Record<RangeOp, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

function holds(a: number | string, op: RangeOp, b: number | string): boolean {
  switch (op) {
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    case 'lt':
      return a < b;
    default:
      return a <= b;
  }
}

function range(o: Operand, op: RangeOp, v: string | number, params: unknown[]): string {
  params.push(v);
  const test = `${o.value} ${RANGE_SQL[op]} ?`;
  const upward = op === 'gt' || op === 'gte';
  const terms = [test];
  if (typeof v === 'number') {
    if (!o.minimal) return `(${test} AND ${o.type} IN ${NUMERIC})`;
    // Every TEXT sorts after every number; '' is the least TEXT.
    if (upward) terms.push(`${o.value} < ''`);
    if (holds(0, op, v) || holds(1, op, v)) terms.push(notBoolean(o));
  } else {
    if (!o.minimal) return `(${test} AND ${o.type} = 'text')`;
    // Every number (and boolean) sorts before every TEXT; '' is the least TEXT.
    if (!upward) terms.push(`${o.value} >= ''`);
    // Array/object text starts with `[` (0x5b) or `{` (0x7b): reachable upward unless the
    // operand starts above `{`, downward when `[` itself is in range. One ASCII character
    // against the operand's first code unit orders the same in JS (UTF-16) as in SQLite
    // (UTF-8, memcmp).
    if (upward ? !(v.charCodeAt(0) > 0x7b) : holds('[', op, v)) terms.push(notContainer(o));
  }
  return terms.length === 1 ? test : `(${terms.join(' AND ')})`;
}

/**
 * Positive predicate on `path`, with the json_each branch when the path may hold an array.
 * A NULL result means "no match"; negations go through `not` below.
 */
function onField(path: string, arrays: ReadonlySet<string>, columns: ReadonlySet<string>, build: (o: Operand) => string): string {
  const field = fieldOperand(path, columns);
  const direct = build(field);
  if (!arrays.has(path)) return direct;
  const elements = `EXISTS (SELECT 1 FROM json_each(doc, '$.${path}') AS je WHERE ${build(ELEMENT)})`;
  return `(${direct} OR (${field.type} = 'array' AND ${elements}))`;
}

// SQL NOT of NULL is NULL, which would drop absent fields from $ne/$nin/$exists: coalesce first.
const not = (p: string): string => `NOT coalesce(${p}, 0)`;

function condSql(path: string, c: Cond, arrays: ReadonlySet<string>, columns: ReadonlySet<string>, params: unknown[]): string {
  const on = (build: (o: Operand) => string): string => onField(path, arrays, columns, build);
  switch (c.op) {
    case 'eq':
      return on((o) => eqOne(o, c.value, params));
    case 'ne':
      return not(on((o) => eqOne(o, c.value, params)));
    case 'in':
      return on((o) => inList(o, c.values, params));
    case 'nin':
      return not(on((o) => inList(o, c.values, params)));
    case 'exists': {
      const isNull = on((o) => eqOne(o, null, params));
      return c.value ? not(isNull) : isNull;
    }
    default:
      return on((o) => range(o, c.op, c.value, params));
  }
}

/** True when translating `filter` consults the array-path registry (any field but `_id`). */
export function needsArrayPaths(filter: readonly FieldFilter[]): boolean {
  for (const f of filter) if (f.path !== '_id' && f.conds.length > 0) return true;
  return false;
}

/**
 * The WHERE expression of a parsed filter, its parameters appended to `params` in order.
 * `arrays` holds the paths that have held an array in this collection (see ArrayPaths in
 * store.ts); `columns` the paths with a hot column (columns.ts).
 */
export function whereSql(filter: readonly FieldFilter[], arrays: ReadonlySet<string>, params: unknown[], columns: ReadonlySet<string> = NO_COLUMNS): string {
  // A filter that names its documents by `_id` (equality or a list) is answered by the primary
  // key: its other terms are wrapped in a unary `+`, which keeps their value but takes them out of
  // index selection. Otherwise SQLite may walk an index of another hot column (all the rows of an
  // org, for `{org_id, _id: {$in: [200 ids]}}`) and test each row against the list.
  const byId = filter.some((f) => f.path === '_id' && f.conds.some((c) => c.op === 'eq' || c.op === 'in'));
  const terms: string[] = [];
  for (const f of filter) {
    for (const c of f.conds) {
      const term = condSql(f.path, c, arrays, columns, params);
      terms.push(byId && f.path !== '_id' ? `+(${term})` : term);
    }
  }
  return terms.length === 0 ? '1' : terms.join(' AND ');
}

/**
 * ` ORDER BY ...` (or nothing). SQLite orders NULL (absent or null) first ascending and last
 * descending, as MongoDB does. Mixed-type fields do not follow MongoDB's cross-type order
 * (booleans sort as 0/1 among numbers): sort on fields of one type.
 */
export function orderSql(sort: SortSpec | undefined, columns: ReadonlySet<string> = NO_COLUMNS): string {
  if (sort === undefined) return '';
  let out = '';
  for (const path in sort) out += `${out === '' ? ' ORDER BY ' : ', '}${extractSql(path, columns)} ${sort[path] === -1 ? 'DESC' : 'ASC'}`;
  return out;
}

/**
 * ` LIMIT <n> OFFSET ?` (or nothing); a skip without a limit uses LIMIT -1 (no limit).
 *
 * The limit is written as an integer literal, not bound: SQLite (since 3.44) reads a bound
 * LIMIT parameter's value while planning and marks the statement to be re-prepared whenever
 * that parameter is bound again (sqlite3ExprIsInteger sets the statement's variable mask), so
 * a bound LIMIT re-prepared the statement on every call (~10 µs). The offset stays bound (it
 * does not take part in planning), so paging through a collection reuses one statement.
 */
export function pageSql(skip: number | undefined, limit: number | undefined, params: unknown[]): string {
  if (skip === undefined && limit === undefined) return '';
  const n = limit ?? -1;
  if (!Number.isSafeInteger(n)) throw new TypeError('limit must be an integer'); // validated upstream; never inline anything else
  params.push(skip ?? 0);
  return ` LIMIT ${n} OFFSET ?`;
}
