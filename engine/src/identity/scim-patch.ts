import { BadRequestError } from '../core/errors';
import { matchesScimFilter, parseScimFilter, type ScimFilter } from './scim-filter';

/**
 * SCIM PATCH (RFC 7644 §3.5.2) applied to a presented resource (a plain JSON object), as Entra
 * ID and Okta send it: `op` add / replace / remove in any letter case; with a `path` (`active`,
 * `name.givenName`, `members`, `members[value eq "id"]`, `emails[type eq "work"].value`) or
 * without one (the value is an object of attribute → value, keys possibly dotted). Returns the
 * patched copy; the caller maps the attributes it honours back to its records.
 * BadRequestError (400, scimType invalidPath / invalidValue / invalidSyntax) when malformed.
 */
export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}

type Json = Record<string, unknown>;

function bad(detail: string, scimType: string): BadRequestError {
  return new BadRequestError(detail, { scimType });
}

function keyOf(node: Json, name: string): string {
  return Object.keys(node).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

interface ParsedPath {
  readonly attr: string;
  readonly filter: ScimFilter | null;
  readonly sub: string | null;
}

/** `attr`, `attr.sub`, `attr[filter]` or `attr[filter].sub` (schema URN prefixes dropped). */
function parsePath(path: string): ParsedPath {
  const bare = path.replace(/^urn:ietf:params:scim:schemas:[^:]+(:[^:]+)*:(?=[A-Za-z])/i, '').replace(/^.*:2\.0:(User|Group):/i, '');
  const m = /^([A-Za-z][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z][\w$-]*))?$/.exec(bare.trim());
  if (!m) throw bad(`Invalid path '${path}'`, 'invalidPath');
  return { attr: m[1], filter: m[2] ? parseScimFilter(m[2]) : null, sub: m[3] ?? null };
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** Adds `value` to a multi-valued attribute, skipping elements already present (same `value`). */
function merge(existing: unknown, value: unknown): unknown {
  if (!Array.isArray(existing) && !Array.isArray(value)) return value;
  const out = [...asArray(existing)];
  for (const item of asArray(value)) {
    const id = (item as Json | null)?.value;
    if (id === undefined || !out.some((e) => (e as Json | null)?.value === id)) out.push(item);
  }
  return out;
}

function applyAt(target: Json, op: string, parsed: ParsedPath, value: unknown): void {
  const key = keyOf(target, parsed.attr);
  if (parsed.filter) {
    const elements = asArray(target[key]);
    const hits = elements.filter((e) => matchesScimFilter(e, parsed.filter as ScimFilter));
    if (op === 'remove') {
      target[key] = parsed.sub
        ? elements.map((e) => {
            if (hits.includes(e)) delete (e as Json)[keyOf(e as Json, parsed.sub as string)];
            return e;
          })
        : elements.filter((e) => !hits.includes(e));
      return;
    }
    if (hits.length === 0) {
      if (op === 'replace' && !parsed.sub) return;
      throw bad(`No value matches the filter of '${parsed.attr}'`, 'noTarget');
    }
    for (const hit of hits) {
      if (parsed.sub) (hit as Json)[keyOf(hit as Json, parsed.sub)] = value;
      else Object.assign(hit as Json, value);
    }
    return;
  }
  if (parsed.sub) {
    const parent = (target[key] && typeof target[key] === 'object' && !Array.isArray(target[key]) ? target[key] : (target[key] = {})) as Json;
    applyAt(parent, op, { attr: parsed.sub, filter: null, sub: null }, value);
    return;
  }
  if (op === 'remove') {
    if (value !== undefined && Array.isArray(target[key])) {
      // Okta/Entra: `remove` of `members` with a value list removes those members.
      const gone = new Set(asArray(value).map((v) => (v as Json | null)?.value));
      target[key] = (target[key] as unknown[]).filter((e) => !gone.has((e as Json | null)?.value));
    } else delete target[key];
  } else if (op === 'add') target[key] = merge(target[key], value);
  else target[key] = value;
}

/** Applies every operation in order to a copy of `resource`. */
export function applyScimPatch<T extends object>(resource: T, operations: readonly PatchOperation[]): T {
  const out = structuredClone(resource) as unknown as Json;
  for (const operation of operations) {
    const op = String(operation.op ?? '').toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw bad(`Unknown op '${operation.op}'`, 'invalidSyntax');
    if (operation.path) {
      applyAt(out, op, parsePath(operation.path), operation.value);
      continue;
    }
    if (op === 'remove') throw bad('remove needs a path', 'noTarget');
    if (operation.value === null || typeof operation.value !== 'object' || Array.isArray(operation.value)) {
      throw bad('An operation without a path needs an object value', 'invalidValue');
    }
    for (const [name, value] of Object.entries(operation.value as Json)) applyAt(out, op, parsePath(name), value);
  }
  return out as unknown as T;
}

/** SCIM booleans as Entra sends them: true/false or the strings "True"/"False". Null otherwise. */
export function scimBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return null;
}
