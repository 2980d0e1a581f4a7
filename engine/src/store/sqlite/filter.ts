/**
 * Port filters and sorts to SQL over `json_extract(doc, '$.path')` (DESIGN.md "Storage").
 *
 * Semantics follow MongoDB so one conformance suite holds for both adapters:
 * - comparisons are type-bracketed: a number never equals a string or a boolean (json_extract
 *   returns 1/0 for booleans, so every comparison also checks `json_type`);
 * - `$eq: null` matches null and absent; `$ne`/`$nin` match absent; `$exists` is "present
 *   and not null" (the port's definition);
 * - on a field holding an array, every operator also matches when some element matches
 *   (json_each). Only paths known to have held an array somewhere in the collection get that
 *   branch, so equality on an indexed scalar field stays an index lookup.
 * Field paths are validated (query.ts) and inlined as literals, so the expression is
 * identical to the one in the expression index; values are always bound parameters.
 */
import { sql } from 'kysely';
import type { JsonValue, SortSpec } from '../port';
import type { Cond, FieldFilter, RangeOp } from '../query';
import type { Sql } from './connection';

const DOC = sql.raw('doc');

/**
 * `json_extract(<docExpr>, '$.<path>')`, the expression of the adapter's indexes too (so the
 * planner matches them). `_id` on the table itself is the primary-key column.
 */
export function extract(path: string, docExpr: Sql = DOC): Sql {
  return path === '_id' && docExpr === DOC ? sql.raw('_id') : sql`json_extract(${docExpr}, ${sql.lit(`$.${path}`)})`;
}

/** A value and its JSON type: a document field, or one array element from json_each. */
interface Operand {
  readonly value: Sql;
  readonly type: Sql;
  /** Array elements have no "absent" state: null matches only a JSON null. */
  readonly element: boolean;
}

function fieldOperand(path: string): Operand {
  if (path === '_id') return { value: sql.raw('_id'), type: sql.lit('text'), element: false };
  return { value: extract(path, DOC), type: sql`json_type(doc, ${sql.lit(`$.${path}`)})`, element: false };
}
const ELEMENT: Operand = { value: sql.raw('je.value'), type: sql.raw('je.type'), element: true };
const NUMERIC = sql.raw(`('integer', 'real')`);

function eqOne(o: Operand, v: JsonValue): Sql {
  if (v === null) return o.element ? sql`${o.type} = 'null'` : sql`${o.value} IS NULL`;
  if (typeof v === 'string') return sql`(${o.value} = ${v} AND ${o.type} = 'text')`;
  if (typeof v === 'number') return sql`(${o.value} = ${v} AND ${o.type} IN ${NUMERIC})`;
  if (typeof v === 'boolean') return sql`(${o.value} = ${v ? 1 : 0} AND ${o.type} = ${sql.lit(v ? 'true' : 'false')})`;
  // Objects and arrays compare as minified JSON text (key order matters, as in MongoDB).
  const kind = Array.isArray(v) ? 'array' : 'object';
  return sql`(${o.value} = json(${JSON.stringify(v)}) AND ${o.type} = ${sql.lit(kind)})`;
}

function inList(o: Operand, values: readonly JsonValue[]): Sql {
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const others = values.filter((v) => typeof v !== 'string' && typeof v !== 'number');
  const terms: Sql[] = [];
  // One IN per type keeps a single index-usable term for the common all-strings case.
  if (strings.length > 0) terms.push(sql`(${o.value} IN (${sql.join(strings)}) AND ${o.type} = 'text')`);
  if (numbers.length > 0) terms.push(sql`(${o.value} IN (${sql.join(numbers)}) AND ${o.type} IN ${NUMERIC})`);
  for (const v of others) terms.push(eqOne(o, v));
  return terms.length === 0 ? sql.raw('0') : sql`(${sql.join(terms, sql.raw(' OR '))})`;
}

const RANGE_SQL: Record<RangeOp, Sql> = { gt: sql.raw('>'), gte: sql.raw('>='), lt: sql.raw('<'), lte: sql.raw('<=') };

function range(o: Operand, op: RangeOp, v: string | number): Sql {
  const type = typeof v === 'string' ? sql`${o.type} = 'text'` : sql`${o.type} IN ${NUMERIC}`;
  return sql`(${o.value} ${RANGE_SQL[op]} ${v} AND ${type})`;
}

/**
 * Positive predicate on `path`, with the json_each branch when the path may hold an array.
 * A NULL result means "no match"; negations go through `not` below.
 */
function onField(path: string, arrays: ReadonlySet<string>, build: (o: Operand) => Sql): Sql {
  const field = fieldOperand(path);
  const direct = build(field);
  if (!arrays.has(path)) return direct;
  const elements = sql`EXISTS (SELECT 1 FROM json_each(doc, ${sql.lit(`$.${path}`)}) AS je WHERE ${build(ELEMENT)})`;
  return sql`(${direct} OR (${field.type} = 'array' AND ${elements}))`;
}

// SQL NOT of NULL is NULL, which would drop absent fields from $ne/$nin/$exists: coalesce first.
const not = (p: Sql): Sql => sql`NOT coalesce(${p}, 0)`;

function condSql(path: string, c: Cond, arrays: ReadonlySet<string>): Sql {
  switch (c.op) {
    case 'eq':
      return onField(path, arrays, (o) => eqOne(o, c.value));
    case 'ne':
      return not(onField(path, arrays, (o) => eqOne(o, c.value)));
    case 'in':
      return onField(path, arrays, (o) => inList(o, c.values));
    case 'nin':
      return not(onField(path, arrays, (o) => inList(o, c.values)));
    case 'exists': {
      const isNull = onField(path, arrays, (o) => eqOne(o, null));
      return c.value ? not(isNull) : isNull;
    }
    default:
      return onField(path, arrays, (o) => range(o, c.op, c.value));
  }
}

/**
 * The WHERE expression of a parsed filter. `arrays` holds the paths that have held an array
 * in this collection (see ArrayPaths in store.ts).
 */
export function whereSql(filter: readonly FieldFilter[], arrays: ReadonlySet<string>): Sql {
  const terms = filter.flatMap((f) => f.conds.map((c) => condSql(f.path, c, arrays)));
  return terms.length === 0 ? sql.raw('1') : sql.join(terms, sql.raw(' AND '));
}

/**
 * ` ORDER BY ...` (or nothing). SQLite orders NULL (absent or null) first ascending and last
 * descending, as MongoDB does. Mixed-type fields do not follow MongoDB's cross-type order
 * (booleans sort as 0/1 among numbers): sort on fields of one type.
 */
export function orderSql(sort: SortSpec | undefined): Sql {
  const keys = Object.entries(sort ?? {});
  if (keys.length === 0) return sql.raw('');
  const terms = keys.map(([path, dir]) => sql`${extract(path)} ${sql.raw(dir === -1 ? 'DESC' : 'ASC')}`);
  return sql` ORDER BY ${sql.join(terms)}`;
}

/** ` LIMIT ? OFFSET ?` (or nothing); a skip without a limit uses LIMIT -1 (no limit). */
export function pageSql(skip: number | undefined, limit: number | undefined): Sql {
  if (skip === undefined && limit === undefined) return sql.raw('');
  return sql` LIMIT ${limit ?? -1} OFFSET ${skip ?? 0}`;
}
