/**
 * Port filters to MongoDB filters. The port's semantics are MongoDB's (see sqlite/filter.ts)
 * except `$exists`, which the port defines as "present and not null": `$exists: true` becomes
 * `$ne: null` and `$exists: false` becomes `$eq: null`. Two conditions landing on the same
 * operator of one path go to `$and`.
 */
import type { Document, Filter as MongoFilter } from 'mongodb';
import type { Cond, FieldFilter } from '../query';

function mongoOp(c: Cond): [string, unknown] {
  switch (c.op) {
    case 'in':
    case 'nin':
      return [`$${c.op}`, c.values];
    case 'exists':
      return [c.value ? '$ne' : '$eq', null];
    default:
      return [`$${c.op}`, c.value];
  }
}

/** The MongoDB filter of a parsed port filter. */
export function mongoFilter(filter: readonly FieldFilter[]): MongoFilter<Document> {
  const fields = new Map<string, Record<string, unknown>>();
  const and: Record<string, unknown>[] = [];
  for (const { path, conds } of filter) {
    for (const c of conds) {
      const [op, value] = mongoOp(c);
      const ops = fields.get(path) ?? {};
      fields.set(path, ops);
      if (op in ops) and.push({ [path]: { [op]: value } });
      else ops[op] = value;
    }
  }
  const out: Record<string, unknown> = Object.fromEntries(fields);
  if (and.length > 0) out.$and = and;
  return out as MongoFilter<Document>;
}
