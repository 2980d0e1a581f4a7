/**
 * FROZEN REFERENCE (test support only; never imported by product code): the plan-JSON pipeline
 * (plan-values.ts, render-change.ts, plan-json.ts planJsonUnits, ingest/hash.ts hashUnit) exactly
 * as it was before the ingest performance work (issue 6). The equivalence tests render every
 * corpus plan and thousands of generated changes with both and require identical units.
 * Do not "fix" or optimise this file: its only job is to be the old behaviour.
 */
/* eslint-disable */
import { createHash } from 'node:crypto';
import { ValidationError } from '../../engine/src/core/errors';
import type { AnalysisUnit, UnitAction } from '../../engine/src/core/unit';

const UNIT_HASH_VERSION = 'planwarden-unit/1';
interface UnitHashInput {
  readonly analyzer: string;
  readonly type: string;
  readonly name: string;
  readonly action: UnitAction;
  readonly body: string;
}

/** Placeholder for a value the plan does not show. */
class Marker {
  constructor(readonly label: string) {}
}
const SENSITIVE = new Marker('(sensitive value)');
/** Same label as SENSITIVE; marks an after-value that differs from its before-value. */
const SENSITIVE_CHANGED = new Marker('(sensitive value)');
const UNKNOWN = new Marker('(known after apply)');

/** A string attribute whose content is JSON, kept parsed. */
class JsonText {
  constructor(readonly value: PlanValue) {}
}

type PlanValue = null | string | number | boolean | Marker | JsonText | readonly PlanValue[] | { readonly [key: string]: PlanValue };

type PlanObject = { readonly [key: string]: PlanValue };

/** Marker for "no other side to compare with" in redactSensitive. */
const NO_PEER: unique symbol = Symbol('no-peer');

/**
 * Masks sensitive parts of `value` following `mask` (JSON plan format: `true` = sensitive,
 * object/array = per key/index, anything else = not sensitive). A null value stays null (it holds
 * nothing). When mask and value disagree in shape, any `true` inside the mask redacts the whole
 * value: the safe side of a malformed plan.
 * `peer` is the raw value at the same path on the other side of the change (or NO_PEER): a masked
 * value equal to its peer becomes SENSITIVE, a different one SENSITIVE_CHANGED (same label), so the
 * renderer can say "changed" without ever comparing redacted text.
 */
function redactSensitive(value: unknown, mask: unknown, peer: unknown = NO_PEER): unknown {
  if (value === null || value === undefined) return value;
  const masked = peer === NO_PEER || rawEqual(value, peer) ? SENSITIVE : SENSITIVE_CHANGED;
  if (mask === true) return masked;
  if (Array.isArray(mask)) {
    if (!Array.isArray(value)) return containsTrue(mask) ? masked : value;
    return value.map((v, i) => redactSensitive(v, mask[i], peerAt(peer, i)));
  }
  if (isRecord(mask)) {
    if (!isRecord(value)) return containsTrue(mask) ? masked : value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactSensitive(v, mask[k], peerAt(peer, k));
    return out;
  }
  return value;
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
function unionMask(x: unknown, y: unknown): unknown {
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

/** Overlays UNKNOWN markers from an `after_unknown` mask (same shape rules as sensitivity). */
function applyUnknown(value: unknown, mask: unknown): unknown {
  if (mask === true) return UNKNOWN;
  if (Array.isArray(mask)) {
    const base = Array.isArray(value) ? [...value] : [];
    mask.forEach((m, i) => {
      if (containsTrue(m)) base[i] = applyUnknown(base[i], m);
    });
    return Array.isArray(value) || base.length > 0 ? base : value;
  }
  if (isRecord(mask)) {
    if (!containsTrue(mask)) return value;
    const base: Record<string, unknown> = isRecord(value) ? { ...value } : {};
    for (const [k, m] of Object.entries(mask)) {
      if (containsTrue(m)) base[k] = applyUnknown(base[k], m);
    }
    return base;
  }
  return value;
}

/**
 * Converts plain JSON (already redacted) into PlanValue, parsing JSON-in-string attributes.
 * Markers pass through; `undefined` becomes null.
 */
function toPlanValue(value: unknown): PlanValue {
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
function prepareChange(change: Record<string, unknown>): { before: PlanValue; after: PlanValue } {
  const mask = unionMask(change.before_sensitive, change.after_sensitive);
  const before = redactSensitive(change.before, mask);
  const after = redactSensitive(change.after, mask, change.before ?? null);
  return { before: toPlanValue(before), after: toPlanValue(applyUnknown(after, change.after_unknown)) };
}

function parseJsonText(text: string): JsonText | null {
  const t = text.trim();
  if (!(t.startsWith('{') && t.endsWith('}')) && !(t.startsWith('[') && t.endsWith(']'))) return null;
  try {
    const parsed: unknown = JSON.parse(t);
    if (typeof parsed !== 'object' || parsed === null) return null;
    return new JsonText(toPlainPlanValue(parsed));
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
function containsTrue(mask: unknown): boolean {
  if (mask === true) return true;
  if (Array.isArray(mask)) return mask.some(containsTrue);
  if (isRecord(mask)) return Object.values(mask).some(containsTrue);
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Marker) && !(value instanceof JsonText);
}

interface RenderInput {
  readonly address: string;
  readonly deposed: string | null;
  readonly mode: string;
  readonly type: string;
  readonly name: string;
  readonly actions: readonly string[];
  readonly actionReason: string | null;
  readonly providerName: string | null;
  readonly replacePaths: readonly string[];
  readonly previousAddress: string | null;
  readonly importingId: string | null;
  readonly before: PlanValue;
  readonly after: PlanValue;
}

/** Builds the body text (LF-separated, no trailing newline). Pure. */
function renderResourceChange(input: RenderInput): string {
  const subject = input.deposed ? `${input.address} (deposed object ${input.deposed})` : input.address;
  const out = [`# ${subject} ${verb(input.actions)}`];
  if (input.actionReason) out.push(`# reason: ${input.actionReason}`);
  if (input.previousAddress) out.push(`# moved from: ${input.previousAddress}`);
  if (input.importingId) out.push(`# imported from: ${JSON.stringify(input.importingId)}`);
  if (input.replacePaths.length > 0) out.push(`# replacement forced by: ${input.replacePaths.join(', ')}`);
  if (input.providerName) out.push(`# provider: ${input.providerName}`);
  const keyword = input.mode === 'data' ? 'data' : input.mode === 'ephemeral' ? 'ephemeral' : 'resource';
  out.push(`${symbol(input.actions)} ${keyword} ${JSON.stringify(input.type)} ${JSON.stringify(input.name)} {`);
  const before = input.before;
  const after = input.after;
  if ((before === null || isRecord(before)) && (after === null || isRecord(after))) {
    out.push(...objectBody(before ?? {}, after ?? {}, 1, before === null, after === null));
  } else {
    out.push(...diffValue('(object) = ', before, after, 1, ''));
  }
  out.push(close(0, '}'));
  return out.join('\n');
}

function verb(actions: readonly string[]): string {
  const a = actions.join(',');
  if (a === 'delete,create') return 'must be replaced';
  if (a === 'create,delete') return 'must be replaced (create before destroy)';
  if (actions.includes('create') && actions.includes('forget')) return 'must be replaced (old object forgotten)';
  switch (a) {
    case 'create':
      return 'will be created';
    case 'delete':
      return 'will be destroyed';
    case 'update':
      return 'will be updated in-place';
    case 'read':
      return 'will be read during apply';
    case 'no-op':
      return 'has no changes';
    case 'forget':
      return 'will be removed from state without being destroyed';
    default:
      return `will be changed (${a})`;
  }
}

function symbol(actions: readonly string[]): string {
  const a = actions.join(',');
  if (a === 'delete,create') return '-/+';
  if (a === 'create,delete' || a === 'create,forget') return '+/-';
  return { create: '+', delete: '-', update: '~', read: '<=', 'no-op': ' ', forget: '-' }[a] ?? '~';
}

/** Terraform's layout: 4 columns per level; marker, space, text; closers align with the text. */
function line(level: number, marker: string, text: string): string {
  return `${' '.repeat(4 * level)}${marker} ${text}`;
}

function close(level: number, text: string): string {
  return `${' '.repeat(4 * level + 2)}${text}`;
}

const IDENT_RE = /^[A-Za-z_][\w-]*$/;

function key(k: string): string {
  return IDENT_RE.test(k) ? k : JSON.stringify(k);
}

function isAbsent(v: PlanValue | undefined): boolean {
  return v === undefined || v === null;
}

function objectBody(before: PlanObject, after: PlanObject, level: number, created: boolean, destroyed: boolean): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const out: string[] = [];
  for (const k of keys) {
    const b = created ? undefined : before[k];
    const a = destroyed ? undefined : after[k];
    if (isAbsent(b) && isAbsent(a)) continue;
    out.push(...diffValue(`${key(k)} = `, b, a, level, ''));
  }
  return out;
}

/** Lines for one attribute/element, comparing before and after. */
function diffValue(prefix: string, b: PlanValue | undefined, a: PlanValue | undefined, level: number, suffix: string): string[] {
  if (isAbsent(b) && isAbsent(a)) return [line(level, ' ', `${prefix}null${suffix}`)];
  if (isAbsent(b)) return full(prefix, a!, '+', level, suffix);
  if (isAbsent(a)) return full(prefix, b!, '-', level, suffix);
  if (deepEqual(b!, a!)) return full(prefix, a!, ' ', level, suffix);
  if (b instanceof Marker && a instanceof Marker && b.label === a.label) return [line(level, '~', `${prefix}${a.label}${suffix}`)];
  if (isRecord(b) && isRecord(a)) {
    return [line(level, '~', `${prefix}{`), ...objectBody(b, a, level + 1, false, false), close(level, `}${suffix}`)];
  }
  if (Array.isArray(b) && Array.isArray(a)) {
    return [line(level, '~', `${prefix}[`), ...arrayDiff(b, a, level + 1), close(level, `]${suffix}`)];
  }
  if (b instanceof JsonText && a instanceof JsonText) {
    return [line(level, '~', `${prefix}jsonencode(`), ...diffValue('', b.value, a.value, level + 1, ''), close(level, `)${suffix}`)];
  }
  const bs = inline(b!);
  const as = inline(a!);
  if (bs !== null && as !== null) return [line(level, '~', `${prefix}${bs} -> ${as}${suffix}`)];
  return [...full(prefix, b!, '-', level, suffix), ...full(prefix, a!, '+', level, suffix)];
}

/** Element-wise diff: same length → pairwise; otherwise LCS on equal elements. */
function arrayDiff(b: readonly PlanValue[], a: readonly PlanValue[], level: number): string[] {
  if (b.length === a.length) return b.flatMap((v, i) => diffValue('', v, a[i], level, ','));
  const pairs = lcs(b, a);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [b.length, a.length] as const]) {
    while (i < pi) out.push(...full('', b[i++], '-', level, ','));
    while (j < pj) out.push(...full('', a[j++], '+', level, ','));
    if (pi < b.length) {
      out.push(...full('', a[pj], ' ', level, ','));
      i += 1;
      j += 1;
    }
  }
  return out;
}

const LCS_LIMIT = 250_000;

function lcs(b: readonly PlanValue[], a: readonly PlanValue[]): (readonly [number, number])[] {
  if (b.length * a.length > LCS_LIMIT) return [];
  const table: number[][] = Array.from({ length: b.length + 1 }, () => new Array<number>(a.length + 1).fill(0));
  for (let i = b.length - 1; i >= 0; i -= 1) {
    for (let j = a.length - 1; j >= 0; j -= 1) {
      table[i][j] = deepEqual(b[i], a[j]) ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const pairs: (readonly [number, number])[] = [];
  let i = 0;
  let j = 0;
  while (i < b.length && j < a.length) {
    if (deepEqual(b[i], a[j])) {
      pairs.push([i, j]);
      i += 1;
      j += 1;
    } else if (table[i + 1][j] >= table[i][j + 1]) i += 1;
    else j += 1;
  }
  return pairs;
}

/** Lines showing a whole value with one marker. */
function full(prefix: string, v: PlanValue, marker: string, level: number, suffix: string): string[] {
  const single = inline(v);
  if (single !== null) return [line(level, marker, `${prefix}${single}${suffix}`)];
  if (typeof v === 'string') return heredoc(prefix, v, marker, level, suffix);
  if (v instanceof JsonText) {
    return [line(level, marker, `${prefix}jsonencode(`), ...full('', v.value, marker, level + 1, ''), close(level, `)${suffix}`)];
  }
  if (Array.isArray(v)) {
    return [line(level, marker, `${prefix}[`), ...v.flatMap((e) => full('', e, marker, level + 1, ',')), close(level, `]${suffix}`)];
  }
  const obj = v as PlanObject;
  const children = Object.keys(obj)
    .sort()
    .filter((k) => !isAbsent(obj[k]));
  return [line(level, marker, `${prefix}{`), ...children.flatMap((k) => full(`${key(k)} = `, obj[k], marker, level + 1, '')), close(level, `}${suffix}`)];
}

/** Single-line rendering, or null when the value needs several lines. */
function inline(v: PlanValue): string | null {
  if (v === null) return 'null';
  if (v instanceof Marker) return v.label;
  if (typeof v === 'string') return v.includes('\n') ? null : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? '[]' : null;
  if (v instanceof JsonText) return null;
  const obj = v as PlanObject;
  return Object.keys(obj).every((k) => isAbsent(obj[k])) ? '{}' : null;
}

function heredoc(prefix: string, text: string, marker: string, level: number, suffix: string): string[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const contentLines = body.split('\n');
  let tag = 'EOT';
  while (contentLines.some((l) => l.trim() === tag)) tag += 'T';
  const pad = ' '.repeat(4 * level + 6);
  return [line(level, marker, `${prefix}<<-${tag}`), ...contentLines.map((l) => (l === '' ? '' : `${pad}${l}`)), close(level, `${tag}${suffix}`)];
}

function deepEqual(x: PlanValue | undefined, y: PlanValue | undefined): boolean {
  if (x === y) return true;
  if (x === undefined || y === undefined || x === null || y === null) return false;
  if (x instanceof Marker || y instanceof Marker) return false;
  if (x instanceof JsonText || y instanceof JsonText) {
    return x instanceof JsonText && y instanceof JsonText && deepEqual(x.value, y.value);
  }
  if (Array.isArray(x) || Array.isArray(y)) {
    return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => deepEqual(v, y[i]));
  }
  if (typeof x !== 'object' || typeof y !== 'object') return false;
  const xo = x as PlanObject;
  const yo = y as PlanObject;
  const keys = new Set([...Object.keys(xo), ...Object.keys(yo)]);
  for (const k of keys) {
    if (isAbsent(xo[k]) && isAbsent(yo[k])) continue;
    if (!deepEqual(xo[k], yo[k])) return false;
  }
  return true;
}

export function legacyPlanJsonUnits(plan: Record<string, unknown>, analyzer: string): AnalysisUnit[] {
  const changes = plan.resource_changes ?? [];
  if (!Array.isArray(changes)) throw new ValidationError('Plan JSON: resource_changes must be an array');
  return changes.map((rc, i) => changeUnit(rc, i, analyzer));
}

/** Maps JSON-plan actions to the unit action and the replace flag. */
function mapPlanActions(actions: readonly string[]): { action: UnitAction; replace: boolean } {
  const has = (a: string): boolean => actions.includes(a);
  if ((has('delete') && has('create')) || (has('create') && has('forget'))) return { action: 'update', replace: true };
  if (has('create')) return { action: 'create', replace: false };
  if (has('delete')) return { action: 'destroy', replace: false };
  if (has('update')) return { action: 'update', replace: false };
  return { action: 'no-op', replace: false }; // no-op, read, forget
}

function changeUnit(rc: unknown, index: number, analyzer: string): AnalysisUnit {
  if (!isRecord(rc) || typeof rc.address !== 'string' || !isRecord(rc.change) || !Array.isArray(rc.change.actions)) {
    throw new ValidationError(`Plan JSON: resource_changes[${index}] is not a resource change (address and change.actions required)`);
  }
  const change = rc.change;
  const actions = (change.actions as unknown[]).map(String);
  const { action, replace } = mapPlanActions(actions);
  const deposed = typeof rc.deposed === 'string' ? rc.deposed : null;
  const mode = typeof rc.mode === 'string' ? rc.mode : 'managed';
  const type = typeof rc.type === 'string' ? rc.type : 'unknown';
  const providerName = typeof rc.provider_name === 'string' ? rc.provider_name : null;
  const actionReason = typeof rc.action_reason === 'string' ? rc.action_reason : null;
  const moduleAddress = typeof rc.module_address === 'string' ? rc.module_address : null;
  const { before, after } = prepareChange(change);
  const body = renderResourceChange({
    address: rc.address,
    deposed,
    mode,
    type,
    name: typeof rc.name === 'string' ? rc.name : rc.address,
    actions,
    actionReason,
    providerName,
    replacePaths: replacePaths(change.replace_paths),
    previousAddress: typeof rc.previous_address === 'string' ? rc.previous_address : null,
    importingId: isRecord(change.importing) && typeof change.importing.id === 'string' ? change.importing.id : null,
    before,
    after,
  });
  const name = deposed ? `${rc.address} (deposed object ${deposed})` : rc.address;
  const unit = { type, name, action, body };
  return {
    ...unit,
    hash: legacyHashUnit({ analyzer, ...unit }),
    metadata: {
      source: 'plan-json',
      address: rc.address,
      module_address: moduleAddress,
      mode,
      provider_name: providerName,
      actions,
      action_reason: actionReason,
      deposed,
      replace,
    },
  };
}

/** `replace_paths` ([["a", 0, "b"], ...]) → ["a[0].b", ...]. */
function replacePaths(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(Array.isArray)
    .map((path: unknown[]) => path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? String(step) : `.${String(step)}`)).join(''));
}

export function legacyHashUnit(input: UnitHashInput): string {
  const body = input.body.replace(/\r\n?/g, '\n').normalize('NFC');
  const canonical = JSON.stringify([UNIT_HASH_VERSION, input.analyzer, input.type, input.name, input.action, body]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

export {
  prepareChange as legacyPrepareChange,
  renderResourceChange as legacyRenderResourceChange,
  SENSITIVE as LEGACY_SENSITIVE,
  UNKNOWN as LEGACY_UNKNOWN,
  Marker as LegacyMarker,
  JsonText as LegacyJsonText,
};
