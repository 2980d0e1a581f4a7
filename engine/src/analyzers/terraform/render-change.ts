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
    case 'create': return 'will be created';
    case 'delete': return 'will be destroyed';
    case 'update': return 'will be updated in-place';
    case 'read': return 'will be read during apply';
    case 'no-op': return 'has no changes';
    case 'forget': return 'will be removed from state without being destroyed';
    default: return `will be changed (${a})`;
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
    if (pi < b.length) { out.push(...full('', a[pj], ' ', level, ',')); i += 1; j += 1; }
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
    if (deepEqual(b[i], a[j])) { pairs.push([i, j]); i += 1; j += 1; } else if (table[i + 1][j] >= table[i][j + 1]) i += 1; else j += 1;
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
  const children = Object.keys(obj).sort().filter((k) => !isAbsent(obj[k]));
  return [
    line(level, marker, `${prefix}{`),
    ...children.flatMap((k) => full(`${key(k)} = `, obj[k], marker, level + 1, '')),
    close(level, `}${suffix}`),
  ];
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
  return [
    line(level, marker, `${prefix}<<-${tag}`),
    ...contentLines.map((l) => (l === '' ? '' : `${pad}${l}`)),
    close(level, `${tag}${suffix}`),
  ];
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
