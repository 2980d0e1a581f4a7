/**
 * Renders one prepared resource change as the unit body: a deterministic, Terraform-like text
 * block the model can quote line by line.
 *
 *   # module.poc.aws_iam_role.r1["p1"] will be created
 *   # provider: registry.terraform.io/hashicorp/aws
 *   + resource "aws_iam_role" "r1" {
 *       + assume_role_policy = jsonencode(
 *           + {
 *               + Statement = [
 *   ...
 *       + name = "p1"
 *     }
 *
 * Line = four columns per nesting level (as Terraform prints plans), a marker (`+` added, `-` removed, `~` changed, ` ` unchanged),
 * a space, then `key = value`. Keys are sorted; null attributes are omitted; strings holding
 * JSON are shown as `jsonencode(...)`; multi-line strings as `<<-EOT` heredocs; a changed scalar
 * is `~ key = old -> new`. Unchanged attributes of an update are shown (marker ` `) because
 * context matters for a security review.
 *
 * Performance: every function appends to one output array instead of returning and
 * spreading per-value arrays; indents and rendered keys are cached; already-sorted key lists
 * (Terraform writes keys sorted) skip the sort. Line leads (indent + marker) are cached,
 * strings needing no escape are quoted without JSON.stringify, and an object is rendered from one
 * key list (no separate "is it empty" pass). Holes in arrays are skipped exactly where the
 * former flatMap-based code skipped them (equivalence.test.ts locks the output).
 */
import { JsonText, Marker, isRecord, type PlanObject, type PlanValue } from './plan-values';

export interface RenderInput {
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
export function renderResourceChange(input: RenderInput): string {
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
    objectBody(out, before ?? {}, after ?? {}, 1, before === null, after === null);
  } else {
    diffValue(out, '(object) = ', before, after, 1, '');
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

/** Looked up like the former inline literal (inherited names included), so output is unchanged. */
const SYMBOLS: Readonly<Record<string, string>> = { create: '+', delete: '-', update: '~', read: '<=', 'no-op': ' ', forget: '-' };

function symbol(actions: readonly string[]): string {
  const a = actions.join(',');
  if (a === 'delete,create') return '-/+';
  if (a === 'create,delete' || a === 'create,forget') return '+/-';
  return SYMBOLS[a] ?? '~';
}

const SPACES: string[] = [];

/** `n` spaces (cached). */
function spaces(n: number): string {
  let s = SPACES[n];
  if (s === undefined) SPACES[n] = s = ' '.repeat(n);
  return s;
}

/** Terraform's layout: 4 columns per level; marker, space, text; closers align with the text. */
function line(level: number, marker: string, text: string): string {
  return lead(level, marker) + text;
}

const LEADS = new Map<string, string[]>();

/** `spaces(4 * level) + marker + ' '` (cached per marker and level). */
function lead(level: number, marker: string): string {
  let byLevel = LEADS.get(marker);
  if (byLevel === undefined) LEADS.set(marker, (byLevel = []));
  let s = byLevel[level];
  if (s === undefined) byLevel[level] = s = `${spaces(4 * level) + marker} `;
  return s;
}

function close(level: number, text: string): string {
  return spaces(4 * level + 2) + text;
}

const IDENT_RE = /^[A-Za-z_][\w-]*$/;
const KEY_CACHE = new Map<string, string>();
const KEY_CACHE_MAX = 20_000;

/** `k = ` as rendered (identifier bare, anything else quoted). */
function keyPrefix(k: string): string {
  let r = KEY_CACHE.get(k);
  if (r === undefined) {
    r = `${IDENT_RE.test(k) ? k : JSON.stringify(k)} = `;
    if (KEY_CACHE.size >= KEY_CACHE_MAX) KEY_CACHE.clear();
    KEY_CACHE.set(k, r);
  }
  return r;
}

function isAbsent(v: PlanValue | undefined): boolean {
  return v === undefined || v === null;
}

/** Sorts in place unless already sorted (default sort order: UTF-16 code units, as `<`). */
function sorted(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i += 1) {
    if (!(keys[i - 1] < keys[i])) return keys.sort();
  }
  return keys;
}

/** The sorted union of both objects' own keys. */
function unionKeys(before: PlanObject, after: PlanObject): string[] {
  const bk = Object.keys(before);
  const ak = Object.keys(after);
  if (bk.length === 0) return sorted(ak);
  if (ak.length === 0) return sorted(bk);
  if (bk.length === ak.length && sameKeys(bk, ak)) return sorted(ak);
  return [...new Set([...bk, ...ak])].sort();
}

function sameKeys(x: readonly string[], y: readonly string[]): boolean {
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return false;
  return true;
}

function objectBody(out: string[], before: PlanObject, after: PlanObject, level: number, created: boolean, destroyed: boolean): void {
  const keys = unionKeys(before, after);
  for (const k of keys) {
    const b = created ? undefined : before[k];
    const a = destroyed ? undefined : after[k];
    if (isAbsent(b) && isAbsent(a)) continue;
    diffValue(out, keyPrefix(k), b, a, level, '');
  }
}

/** Lines for one attribute/element, comparing before and after. */
function diffValue(out: string[], prefix: string, b: PlanValue | undefined, a: PlanValue | undefined, level: number, suffix: string): void {
  if (isAbsent(b) && isAbsent(a)) {
    out.push(line(level, ' ', `${prefix}null${suffix}`));
    return;
  }
  if (isAbsent(b)) {
    full(out, prefix, a!, '+', level, suffix);
    return;
  }
  if (isAbsent(a)) {
    full(out, prefix, b!, '-', level, suffix);
    return;
  }
  if (deepEqual(b!, a!)) {
    full(out, prefix, a!, ' ', level, suffix);
    return;
  }
  if (b instanceof Marker && a instanceof Marker && b.label === a.label) {
    out.push(line(level, '~', `${prefix}${a.label}${suffix}`));
    return;
  }
  if (isRecord(b) && isRecord(a)) {
    out.push(line(level, '~', `${prefix}{`));
    objectBody(out, b, a, level + 1, false, false);
    out.push(close(level, `}${suffix}`));
    return;
  }
  if (Array.isArray(b) && Array.isArray(a)) {
    out.push(line(level, '~', `${prefix}[`));
    arrayDiff(out, b, a, level + 1);
    out.push(close(level, `]${suffix}`));
    return;
  }
  if (b instanceof JsonText && a instanceof JsonText) {
    out.push(line(level, '~', `${prefix}jsonencode(`));
    diffValue(out, '', b.value, a.value, level + 1, '');
    out.push(close(level, `)${suffix}`));
    return;
  }
  const bs = inline(b!);
  const as = inline(a!);
  if (bs !== null && as !== null) {
    out.push(line(level, '~', `${prefix}${bs} -> ${as}${suffix}`));
    return;
  }
  full(out, prefix, b!, '-', level, suffix);
  full(out, prefix, a!, '+', level, suffix);
}

/** Element-wise diff: same length → pairwise; otherwise LCS on equal elements. */
function arrayDiff(out: string[], b: readonly PlanValue[], a: readonly PlanValue[], level: number): void {
  if (b.length === a.length) {
    for (let i = 0; i < b.length; i += 1) if (i in b) diffValue(out, '', b[i], a[i], level, ','); // holes skipped
    return;
  }
  const pairs = lcs(b, a);
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [b.length, a.length] as const]) {
    while (i < pi) full(out, '', b[i++], '-', level, ',');
    while (j < pj) full(out, '', a[j++], '+', level, ',');
    if (pi < b.length) {
      full(out, '', a[pj], ' ', level, ',');
      i += 1;
      j += 1;
    }
  }
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
function full(out: string[], prefix: string, v: PlanValue, marker: string, level: number, suffix: string): void {
  if (typeof v === 'object' && v !== null && !(v instanceof Marker)) {
    if (v instanceof JsonText) {
      out.push(line(level, marker, `${prefix}jsonencode(`));
      full(out, '', v.value, marker, level + 1, '');
      out.push(close(level, `)${suffix}`));
      return;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) {
        out.push(line(level, marker, `${prefix}[]${suffix}`));
        return;
      }
      out.push(line(level, marker, `${prefix}[`));
      for (let i = 0; i < v.length; i += 1) if (i in v) full(out, '', v[i], marker, level + 1, ','); // holes skipped
      out.push(close(level, `]${suffix}`));
      return;
    }
    // An object: `{}` on one line when every attribute is absent (as inline() says), else a block.
    const obj = v as PlanObject;
    const keys = Object.keys(obj);
    let shown = false;
    for (let i = 0; i < keys.length && !shown; i += 1) shown = !isAbsent(obj[keys[i]]);
    if (!shown) {
      out.push(line(level, marker, `${prefix}{}${suffix}`));
      return;
    }
    out.push(line(level, marker, `${prefix}{`));
    for (const k of sorted(keys)) {
      const child = obj[k];
      if (!isAbsent(child)) full(out, keyPrefix(k), child, marker, level + 1, '');
    }
    out.push(close(level, `}${suffix}`));
    return;
  }
  const single = inline(v);
  if (single !== null) {
    out.push(line(level, marker, prefix + single + suffix));
    return;
  }
  heredoc(out, prefix, v as string, marker, level, suffix); // only a multi-line string is not inline
}

/** Single-line rendering, or null when the value needs several lines. */
function inline(v: PlanValue): string | null {
  if (v === null) return 'null';
  if (typeof v === 'string') return v.includes('\n') ? null : quoted(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Marker) return v.label;
  if (Array.isArray(v)) return v.length === 0 ? '[]' : null;
  if (v instanceof JsonText) return null;
  const obj = v as PlanObject;
  for (const k of Object.keys(obj)) if (!isAbsent(obj[k])) return null;
  return '{}';
}

/** Characters JSON.stringify escapes in a string (quote, backslash, controls) or may (surrogates). */
const NEEDS_ESCAPE_RE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text), without the serialiser's overhead when nothing needs escaping. */
function quoted(text: string): string {
  return NEEDS_ESCAPE_RE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function heredoc(out: string[], prefix: string, text: string, marker: string, level: number, suffix: string): void {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const contentLines = body.split('\n');
  let tag = 'EOT';
  while (contentLines.some((l) => l.trim() === tag)) tag += 'T';
  const pad = spaces(4 * level + 6);
  out.push(line(level, marker, `${prefix}<<-${tag}`));
  for (const l of contentLines) out.push(l === '' ? '' : pad + l);
  out.push(close(level, `${tag}${suffix}`));
}

function deepEqual(x: PlanValue | undefined, y: PlanValue | undefined): boolean {
  if (x === y) return true;
  if (x === undefined || y === undefined || x === null || y === null) return false;
  if (typeof x !== 'object' || typeof y !== 'object') return false; // distinct scalars (or scalar vs object)
  if (x instanceof Marker || y instanceof Marker) return false;
  if (x instanceof JsonText || y instanceof JsonText) {
    return x instanceof JsonText && y instanceof JsonText && deepEqual(x.value, y.value);
  }
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i += 1) if (i in x && !deepEqual(x[i], y[i])) return false; // `every` skips holes
    return true;
  }
  const xo = x as PlanObject;
  const yo = y as PlanObject;
  // Every key of either side (each once): absent on both sides counts as equal.
  for (const k of Object.keys(xo)) {
    if (isAbsent(xo[k]) && isAbsent(yo[k])) continue;
    if (!deepEqual(xo[k], yo[k])) return false;
  }
  for (const k of Object.keys(yo)) {
    if (Object.hasOwn(xo, k)) continue;
    if (isAbsent(xo[k]) && isAbsent(yo[k])) continue;
    if (!deepEqual(xo[k], yo[k])) return false;
  }
  return true;
}
