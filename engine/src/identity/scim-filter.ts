import { BadRequestError } from '../core/errors';

/**
 * SCIM filters (RFC 7644 §3.4.2.2): `attrPath op value`, `attrPath pr`, `and`, `or`, `not (...)`,
 * parentheses and value paths `emails[type eq "work"]`. Operators eq ne co sw ew gt ge lt le pr.
 * String comparisons are case-insensitive (every attribute we expose is caseExact false except
 * `id`, which is opaque and compared exactly). No SCIM filter library is installed in the
 * workspace, so this is a small recursive-descent parser over a tokenizer (docs/decisions.md).
 */
export type ScimFilter =
  | { readonly kind: 'and' | 'or'; readonly left: ScimFilter; readonly right: ScimFilter }
  | { readonly kind: 'not'; readonly filter: ScimFilter }
  | { readonly kind: 'compare'; readonly path: string; readonly op: string; readonly value: unknown }
  | { readonly kind: 'present'; readonly path: string }
  | { readonly kind: 'valuePath'; readonly path: string; readonly filter: ScimFilter };

const COMPARE_OPS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const TOKEN = /\s*(?:(\()|(\))|(\[)|(\])|("(?:[^"\\]|\\.)*")|([^\s()[\]"]+))/y;

/** A filter the parser refuses: 400 with scimType invalidFilter (RFC 7644 §3.12). */
export function invalidFilter(detail: string): BadRequestError {
  return new BadRequestError(`Invalid filter: ${detail}`, { scimType: 'invalidFilter' });
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m || TOKEN.lastIndex === start) throw invalidFilter(`unexpected character at ${start}`);
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6]);
  }
  return tokens;
}

function literal(token: string | undefined): unknown {
  if (token === undefined) throw invalidFilter('a comparison value is missing');
  if (token.startsWith('"')) return JSON.parse(token) as string;
  if (token === 'true' || token === 'false') return token === 'true';
  if (token === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token)) return Number(token);
  throw invalidFilter(`'${token}' is not a value (strings are quoted)`);
}

/** Parses `text`; BadRequestError (400, scimType invalidFilter) when malformed. */
export function parseScimFilter(text: string): ScimFilter {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at]?.toLowerCase();
  const expect = (t: string) => {
    if (tokens[at] !== t) throw invalidFilter(`expected '${t}'`);
    at += 1;
  };
  const attrExpr = (): ScimFilter => {
    const path = tokens[at++];
    if (!path || !/^[A-Za-z][\w:.$-]*$/.test(path)) throw invalidFilter(`'${path ?? ''}' is not an attribute path`);
    if (tokens[at] === '[') {
      at += 1;
      const inner = or();
      expect(']');
      return { kind: 'valuePath', path, filter: inner };
    }
    const op = peek();
    at += 1;
    if (op === 'pr') return { kind: 'present', path };
    if (!op || !COMPARE_OPS.has(op)) throw invalidFilter(`unknown operator '${op ?? ''}'`);
    return { kind: 'compare', path, op, value: literal(tokens[at++]) };
  };
  const unary = (): ScimFilter => {
    if (peek() === 'not') {
      at += 1;
      expect('(');
      const inner = or();
      expect(')');
      return { kind: 'not', filter: inner };
    }
    if (tokens[at] === '(') {
      at += 1;
      const inner = or();
      expect(')');
      return inner;
    }
    return attrExpr();
  };
  const and = (): ScimFilter => {
    let left = unary();
    while (peek() === 'and') {
      at += 1;
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  };
  function or(): ScimFilter {
    let left = and();
    while (peek() === 'or') {
      at += 1;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  }
  const filter = or();
  if (at !== tokens.length) throw invalidFilter(`unexpected '${tokens[at]}'`);
  return filter;
}

/** Values at `path` (dotted, case-insensitive, through multi-valued attributes), flattened. */
export function valuesAt(resource: unknown, path: string): unknown[] {
  let current: unknown[] = [resource];
  const bare = path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '');
  for (const segment of bare.split('.')) {
    const next: unknown[] = [];
    for (const node of current.flatMap((n) => (Array.isArray(n) ? n : [n]))) {
      if (node === null || typeof node !== 'object') continue;
      const key = Object.keys(node).find((k) => k.toLowerCase() === segment.toLowerCase());
      if (key !== undefined) next.push((node as Record<string, unknown>)[key]);
    }
    current = next;
  }
  return current.flatMap((n) => (Array.isArray(n) ? n : [n])).filter((v) => v !== undefined);
}

function compare(actual: unknown, op: string, expected: unknown, exact: boolean): boolean {
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = exact ? actual : actual.toLowerCase();
    const e = exact ? expected : expected.toLowerCase();
    switch (op) {
      case 'eq':
        return a === e;
      case 'ne':
        return a !== e;
      case 'co':
        return a.includes(e);
      case 'sw':
        return a.startsWith(e);
      case 'ew':
        return a.endsWith(e);
      case 'gt':
        return a > e;
      case 'ge':
        return a >= e;
      case 'lt':
        return a < e;
      case 'le':
        return a <= e;
    }
  }
  if (op === 'eq') return actual === expected;
  if (op === 'ne') return actual !== expected;
  if (typeof actual === 'number' && typeof expected === 'number') {
    return op === 'gt' ? actual > expected : op === 'ge' ? actual >= expected : op === 'lt' ? actual < expected : op === 'le' ? actual <= expected : false;
  }
  return false;
}

/** Whether `resource` (a presented SCIM resource) matches `filter`. */
export function matchesScimFilter(resource: unknown, filter: ScimFilter): boolean {
  switch (filter.kind) {
    case 'and':
      return matchesScimFilter(resource, filter.left) && matchesScimFilter(resource, filter.right);
    case 'or':
      return matchesScimFilter(resource, filter.left) || matchesScimFilter(resource, filter.right);
    case 'not':
      return !matchesScimFilter(resource, filter.filter);
    case 'present':
      return valuesAt(resource, filter.path).some((v) => v !== null && v !== '' && !(Array.isArray(v) && v.length === 0));
    case 'valuePath':
      return valuesAt(resource, filter.path).some((element) => matchesScimFilter(element, filter.filter));
    case 'compare': {
      const values = valuesAt(resource, filter.path);
      const exact = filter.path.toLowerCase() === 'id';
      if (filter.op === 'ne') return values.every((v) => compare(v, 'ne', filter.value, exact));
      return values.some((v) => compare(v, filter.op, filter.value, exact));
    }
  }
}
