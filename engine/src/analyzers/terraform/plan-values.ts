/**
 * Values of a `terraform show -json` resource change, prepared for rendering:
 * 1. sensitive masks (`before_sensitive`/`after_sensitive`: `true`, or objects/arrays of booleans
 *    mirroring the value) replace the raw value by the SENSITIVE marker — first, so no later step
 *    (JSON-string parsing, rendering, metadata) ever holds the secret;
 * 2. `after_unknown` masks add the UNKNOWN marker ("known after apply"), creating keys that are
 *    absent from `after`;
 * 3. strings holding a JSON object/array (IAM policies, container definitions) become JsonText so
 *    the renderer can show them structured, like Terraform's `jsonencode(...)`.
 */

/** Placeholder for a value the plan does not show. */
export class Marker {
  constructor(readonly label: string) {}
}
export const SENSITIVE = new Marker('(sensitive value)');
/** Same label as SENSITIVE; marks an after-value that differs from its before-value. */
export const SENSITIVE_CHANGED = new Marker('(sensitive value)');
export const UNKNOWN = new Marker('(known after apply)');

/** A string attribute whose content is JSON, kept parsed. */
export class JsonText {
  constructor(readonly value: PlanValue) {}
}

export type PlanValue = null | string | number | boolean | Marker | JsonText | readonly PlanValue[] | { readonly [key: string]: PlanValue };

export type PlanObject = { readonly [key: string]: PlanValue };

/** Marker for "no other side to compare with" in redactSensitive. */
export const NO_PEER: unique symbol = Symbol('no-peer');

/**
 * Masks sensitive parts of `value` following `mask` (JSON plan format: `true` = sensitive,
 * object/array = per key/index, anything else = not sensitive). A null value stays null (it holds
 * nothing). When mask and value disagree in shape, any `true` inside the mask redacts the whole
 * value: the safe side of a malformed plan.
 * `peer` is the raw value at the same path on the other side of the change (or NO_PEER): a masked
 * value equal to its peer becomes SENSITIVE, a different one SENSITIVE_CHANGED (same label), so the
 * renderer can say "changed" without ever comparing redacted text.
 */
export function redactSensitive(value: unknown, mask: unknown, peer: unknown = NO_PEER): unknown {
  if (value === null || value === undefined) return value;
  if (mask === true) return maskedFor(value, peer);
  if (Array.isArray(mask)) {
    if (!Array.isArray(value)) return containsTrue(mask) ? maskedFor(value, peer) : value;
    return value.map((v, i) => redactSensitive(v, mask[i], peerAt(peer, i)));
  }
  if (isRecord(mask)) {
    if (!isRecord(value)) return containsTrue(mask) ? maskedFor(value, peer) : value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactSensitive(v, mask[k], peerAt(peer, k));
    return out;
  }
  return value;
}

/**
 * The marker for a masked value: SENSITIVE when equal to its peer (or without one), else
 * SENSITIVE_CHANGED. Only computed where a value is actually masked: comparing (serialising)
 * every subtree on the way down made redaction quadratic in the nesting depth.
 */
function maskedFor(value: unknown, peer: unknown): Marker {
  return peer === NO_PEER || rawEqual(value, peer) ? SENSITIVE : SENSITIVE_CHANGED;
}

function peerAt(peer: unknown, key: string | number): unknown {
  if (peer === NO_PEER) return NO_PEER;
  if (typeof key === 'number') return Array.isArray(peer) ? peer[key] : undefined;
  return isRecord(peer) ? peer[key] : undefined;
}

function rawEqual(x: unknown, y: unknown): boolean {
  return JSON.stringify(x) === JSON.stringify(y);
}

/**
 * Union of two sensitivity masks: a path is sensitive when either side marks it. Applying the
 * union to both sides keeps a value that became sensitive from showing in clear on the other side.
 */
export function unionMask(x: unknown, y: unknown): unknown {
  if (x === true || y === true) return true;
  const xs = Array.isArray(x) || isRecord(x);
  const ys = Array.isArray(y) || isRecord(y);
  if (!xs) return ys ? y : false;
  if (!ys) return x;
  if (Array.isArray(x) && Array.isArray(y)) {
    return Array.from({ length: Math.max(x.length, y.length) }, (_, i) => unionMask(x[i], y[i]));
  }
  if (isRecord(x) && isRecord(y)) {
    const out: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) out[k] = unionMask(x[k], y[k]);
    return out;
  }
  return containsTrue(x) || containsTrue(y);
}

/**
 * Overlays UNKNOWN markers from an `after_unknown` mask (same shape rules as sensitivity): `true`
 * → UNKNOWN; an array mask copies an array value (or starts from []) and overlays each element
 * whose mask holds a `true`; an object mask holding a `true` copies an object value (or starts
 * from {}) and overlays each such key, creating absent keys; anything else leaves `value` as is.
 * One walk of the mask: each sub-mask is searched for a `true` once, not once per level.
 */
export function applyUnknown(value: unknown, mask: unknown, created: Set<object> | null = null): unknown {
  const r = overlayUnknown(value, mask, created);
  if (r !== NO_TRUE) return r;
  if (!(Array.isArray(mask) && Array.isArray(value))) return value;
  const copy = [...value]; // an array mask always copies an array
  created?.add(copy);
  return copy;
}

/** No `true` anywhere in the mask: the caller keeps its value untouched. */
const NO_TRUE: unique symbol = Symbol('no-true');

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * applyUnknown for a mask holding a `true`; NO_TRUE (nothing built) for a mask without one.
 * Every container it builds goes into `created` (when given).
 */
function overlayUnknown(value: unknown, mask: unknown, created: Set<object> | null): unknown {
  if (mask === true) return UNKNOWN;
  if (Array.isArray(mask)) {
    let base: unknown[] | null = null;
    for (let i = 0; i < mask.length; i += 1) {
      const current = base !== null ? base[i] : Array.isArray(value) ? value[i] : undefined;
      const r = overlayUnknown(current, mask[i], created);
      if (r === NO_TRUE) continue;
      if (base === null) {
        base = Array.isArray(value) ? [...value] : [];
        created?.add(base);
      }
      base[i] = r;
    }
    return base ?? NO_TRUE;
  }
  if (isRecord(mask)) {
    let base: Record<string, unknown> | null = null;
    for (const k of Object.keys(mask)) {
      // Before the first write, reading the copy-to-be gives what reading the source gives.
      const current = (base ?? (isRecord(value) ? value : EMPTY))[k];
      const r = overlayUnknown(current, mask[k], created);
      if (r === NO_TRUE) continue;
      if (base === null) {
        base = isRecord(value) ? { ...value } : {};
        created?.add(base);
      }
      base[k] = r;
    }
    return base ?? NO_TRUE;
  }
  return NO_TRUE;
}

/**
 * Converts plain JSON (already redacted) into PlanValue, parsing JSON-in-string attributes.
 * Markers pass through; `undefined` becomes null.
 */
export function toPlanValue(value: unknown): PlanValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Marker) return value;
  if (typeof value === 'string') return parseJsonText(value) ?? value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(toPlanValue);
  if (isRecord(value)) {
    const out: Record<string, PlanValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlanValue(v);
    return out;
  }
  return String(value);
}

/**
 * Prepares both sides of a JSON-plan `change` object for rendering: union sensitivity mask
 * applied to both sides (first), after_unknown overlaid on `after`, JSON strings parsed.
 */
export function prepareChange(change: Record<string, unknown>): PreparedChange {
  // containsTrue(unionMask(x, y)) === containsTrue(x) || containsTrue(y): no union built to ask.
  if (!trueOrProtoKey(change.before_sensitive) && !trueOrProtoKey(change.after_sensitive) && !hasProtoKey(change.after_unknown)) {
    const fast = prepareUnmasked(change);
    if (fast) return fast;
  }
  const mask = unionMask(change.before_sensitive, change.after_sensitive);
  const before = redactSensitive(change.before, mask);
  const after = redactSensitive(change.after, mask, change.before ?? null);
  const prepared = toPlanValue(applyUnknown(after, change.after_unknown));
  return { before: toPlanValue(before), after: prepared, values: plainValue(prepared) };
}

/** Both sides ready to render, and `values`: plainValue(after). */
export interface PreparedChange {
  readonly before: PlanValue;
  readonly after: PlanValue;
  readonly values: unknown;
}

/**
 * Fast path of prepareChange for a change with nothing sensitive (the common case): no
 * redaction pass, and no copy of subtrees that hold no JSON string (the renderer only reads, so
 * sharing the parsed plan's objects is safe). Same result as the general path: with an all-false
 * mask redactSensitive is a plain deep copy, and toPlanValue's copy is only observable through a
 * `__proto__` key (assignment sets the prototype instead of a property) — such changes (and masks
 * holding one, checked by the caller) return null and take the general path.
 * `values` only walks the containers built here (`created`): any other object of `after` is the
 * parsed plan's own, or a parsed JSON string's, so plain JSON already (no Marker below it).
 */
function prepareUnmasked(change: Record<string, unknown>): PreparedChange | null {
  try {
    const created = new Set<object>();
    const before = sharedPlanValue(change.before, created);
    const after = sharedPlanValue(applyUnknown(change.after, change.after_unknown, created), created);
    const values = sharedPlain(after, created);
    return { before, after, values: values === SAME ? after : values };
  } catch (err) {
    if (err === PROTO_KEY) return null;
    throw err;
  }
}

const PROTO_KEY = new Error('__proto__ key');

/**
 * toPlanValue without copying what does not change: returns `value` itself when no JSON string
 * (or undefined) lies below it, else a copy with the same keys in the same order (holes of
 * arrays kept, as `map` keeps them). Throws PROTO_KEY on an own `__proto__` key. Copies go into
 * `created`.
 */
function sharedPlanValue(value: unknown, created: Set<object>): PlanValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return parseJsonText(value) ?? value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Marker) return value;
  if (Array.isArray(value)) {
    let out: PlanValue[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const v: unknown = value[i];
      if (v === undefined && !(i in value)) continue; // a hole stays a hole
      const c = sharedPlanValue(v, created);
      if (c === v) continue;
      if (out === null) created.add((out = value.slice() as PlanValue[]));
      out[i] = c;
    }
    return out ?? (value as PlanValue[]);
  }
  if (isRecord(value)) {
    const keys = Object.keys(value);
    let out: Record<string, PlanValue> | null = null;
    for (let i = 0; i < keys.length; i += 1) {
      const k = keys[i];
      if (k === '__proto__') throw PROTO_KEY;
      const v = value[k];
      const c = sharedPlanValue(v, created);
      if (out === null && c !== v) {
        created.add((out = {}));
        for (let j = 0; j < i; j += 1) out[keys[j]] = value[keys[j]] as PlanValue;
      }
      if (out !== null) out[k] = c;
    }
    return out ?? (value as PlanObject);
  }
  return String(value);
}

/** containsTrue(mask) || hasProtoKey(mask), in one walk. */
function trueOrProtoKey(mask: unknown): boolean {
  if (mask === true) return true;
  if (typeof mask !== 'object' || mask === null) return false;
  if (Array.isArray(mask)) {
    for (let i = 0; i < mask.length; i += 1) if (trueOrProtoKey(mask[i])) return true;
    return false;
  }
  const record = mask as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    if (k === '__proto__' || trueOrProtoKey(record[k])) return true;
  }
  return false;
}

/** True when `value` (plain JSON) holds an own `__proto__` key at any depth. */
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasProtoKey);
  for (const k of Object.keys(value)) {
    if (k === '__proto__' || hasProtoKey((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

function parseJsonText(text: string): JsonText | null {
  // Fast exit (same answer as below): a first character that trim() keeps and that opens no
  // JSON object/array. Printable ASCII other than space is never trimmed.
  const c0 = text.charCodeAt(0);
  if (c0 > 0x20 && c0 < 0x7f && c0 !== 0x7b /* { */ && c0 !== 0x5b /* [ */) return null;
  const t = text.trim();
  if (!(t.startsWith('{') && t.endsWith('}')) && !(t.startsWith('[') && t.endsWith(']'))) return null;
  try {
    const parsed: unknown = JSON.parse(t);
    if (typeof parsed !== 'object' || parsed === null) return null;
    // Parsed JSON already is a PlanValue, but for an own `__proto__` key (a copy drops it).
    return new JsonText(hasProtoKey(parsed) ? toPlainPlanValue(parsed) : (parsed as PlanValue));
  } catch {
    return null;
  }
}

/** Like toPlanValue but without parsing nested JSON strings again (one level is enough). */
function toPlainPlanValue(value: unknown): PlanValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(toPlainPlanValue);
  if (isRecord(value)) {
    const out: Record<string, PlanValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlainPlanValue(v);
    return out;
  }
  return null;
}

/** True when a mask holds `true` anywhere. */
export function containsTrue(mask: unknown): boolean {
  if (mask === true) return true;
  if (Array.isArray(mask)) return mask.some(containsTrue);
  if (isRecord(mask)) return Object.values(mask).some(containsTrue);
  return false;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Marker || value instanceof JsonText);
}

/**
 * A prepared value as plain JSON for deterministic checks (checks/run-checks.ts `values`):
 * markers become their labels ("(sensitive value)", "(known after apply)"), JSON-in-string
 * attributes their parsed value. Holds nothing the body does not show.
 */
export function plainValue(value: PlanValue): unknown {
  const r = sharedPlain(value, null);
  return r === SAME ? value : r;
}

/** The original object stands for itself (nothing below it needed converting). */
const SAME: unique symbol = Symbol('same');

/**
 * plainValue without copying subtrees that hold no Marker or JsonText (those are already plain
 * JSON: a PlanValue has no `undefined` and no own `__proto__` key, both dropped when it was
 * built, so a copy would print the same). SAME when `value` itself can be returned; else a new
 * array/object with the same keys in the same order (array holes kept, as `map` keeps them).
 * With `created` (prepareUnmasked), an array/object not in it is known to be plain JSON: SAME
 * without a walk.
 */
function sharedPlain(value: PlanValue, created: Set<object> | null): unknown {
  if (typeof value !== 'object' || value === null) return SAME;
  if (value instanceof Marker) return value.label;
  if (value instanceof JsonText) {
    const inner = sharedPlain(value.value, created);
    return inner === SAME ? value.value : inner;
  }
  if (created !== null && !created.has(value)) return SAME;
  if (Array.isArray(value)) {
    const list = value as readonly PlanValue[];
    let out: unknown[] | null = null;
    for (let i = 0; i < list.length; i += 1) {
      const v = list[i];
      if (v === undefined && !(i in list)) continue; // a hole stays a hole
      const r = sharedPlain(v, created);
      if (r !== SAME) (out ??= list.slice())[i] = r;
    }
    return out ?? SAME;
  }
  const obj = value as PlanObject;
  const keys = Object.keys(obj);
  let out: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i += 1) {
    const r = sharedPlain(obj[keys[i]], created);
    if (out === null && r !== SAME) {
      out = {};
      for (let j = 0; j < i; j += 1) out[keys[j]] = obj[keys[j]];
    }
    if (out !== null) out[keys[i]] = r === SAME ? obj[keys[i]] : r;
  }
  return out ?? SAME;
}
