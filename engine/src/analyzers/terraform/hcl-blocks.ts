/**
 * Top-level block finder for HCL (Terraform configuration), tolerant of partial text.
 *
 * Brackets `{ [ (` are counted outside strings, template interpolations, comments and heredocs,
 * so a brace inside `"${jsonencode({a = 1})}"` or inside a `<<-EOT` body does not move the depth.
 * It is a lexer-level scan, not a parser: it does not validate HCL.
 *
 * Partial text (diff hunks) starts at an unknown depth. A segment with `estimate: true` guesses
 * its starting depth from the indentation of its first non-blank line (`terraform fmt` indents
 * two spaces per bracket level) and then applies two column-0 safety nets: a block opener at
 * column 0 always starts a new top-level block, and a `}` alone at column 0 always closes one.
 */

/** A recognised top-level block header, e.g. `resource "aws_s3_bucket" "logs" {`. */
export interface BlockOpener {
  /** `resource`, `data`, `module`, `variable`, `output`, `provider`, `locals`, ... */
  readonly kind: string;
  readonly labels: readonly string[];
  /** Unit type: the resource type for resource/data/ephemeral, otherwise the block kind. */
  readonly type: string;
  /** Address-like name: `aws_s3_bucket.logs`, `data.x.y`, `module.vpc`, `var.x`, `locals`. */
  readonly name: string;
}

/** A span of lines (indices into the concatenated segment lines, inclusive). */
export interface BlockSpan {
  /** null = a block whose header is not known (hunk started inside it, no usable heading). */
  readonly opener: BlockOpener | null;
  readonly start: number;
  readonly end: number;
  /** True when the closing bracket was seen. */
  readonly closed: boolean;
  /** True when the opener line itself is not among the lines (taken from a hunk heading). */
  readonly inferred: boolean;
}

export interface LineSegment {
  readonly lines: readonly string[];
  /** Guess the starting depth from indentation (diff hunks); false = starts at depth 0. */
  readonly estimate: boolean;
  /** Text naming the block the segment starts inside (git hunk heading), if any. */
  readonly header?: string;
}

const BLOCK_KINDS = new Set([
  'resource',
  'data',
  'ephemeral',
  'module',
  'variable',
  'output',
  'provider',
  'locals',
  'terraform',
  'moved',
  'import',
  'removed',
  'check',
]);
const OPENER_RE = /^\s*([A-Za-z_][\w-]*)((?:\s+(?:"[^"]*"|[A-Za-z_][\w-]*))*)\s*\{/;
const LABEL_RE = /"([^"]*)"|([A-Za-z_][\w-]*)/g;

/** Parses a top-level block header line; null when the line is not one. */
export function parseBlockOpener(line: string): BlockOpener | null {
  const m = OPENER_RE.exec(line);
  if (!m || !BLOCK_KINDS.has(m[1])) return null;
  const kind = m[1];
  const labels = [...m[2].matchAll(LABEL_RE)].map((l) => l[1] ?? l[2]);
  const [a, b] = labels;
  switch (kind) {
    case 'resource':
      return a && b ? { kind, labels, type: a, name: `${a}.${b}` } : null;
    case 'data':
    case 'ephemeral':
      return a && b ? { kind, labels, type: a, name: `${kind}.${a}.${b}` } : null;
    case 'module':
    case 'provider':
    case 'check':
      return a ? { kind, labels, type: kind, name: `${kind}.${a}` } : null;
    case 'variable':
      return a ? { kind, labels, type: kind, name: `var.${a}` } : null;
    case 'output':
      return a ? { kind, labels, type: kind, name: `output.${a}` } : null;
    default:
      return labels.length === 0 ? { kind, labels, type: kind, name: kind } : null;
  }
}

interface LexState {
  depth: number;
  heredoc: string | null;
  blockComment: boolean;
}

/**
 * Finds top-level blocks across segments. A block still open at the end of a segment continues
 * into the next one when that segment starts inside a block with the same name.
 */
export function findTopLevelBlocks(segments: readonly LineSegment[]): BlockSpan[] {
  const spans: BlockSpan[] = [];
  const cur: { open: OpenBlock | null } = { open: null };
  const closeOpen = (end: number, closed: boolean): void => {
    if (cur.open && end >= cur.open.start) spans.push({ ...cur.open, end, closed });
    cur.open = null;
  };
  let base = 0;

  for (const segment of segments) {
    const st: LexState = { depth: 0, heredoc: null, blockComment: false };
    if (segment.estimate) {
      st.depth = estimateDepth(segment.lines);
      const headerOpener = segment.header ? parseBlockOpener(segment.header) : null;
      const continues = st.depth > 0 && headerOpener !== null && cur.open?.opener?.name === headerOpener.name;
      if (!continues) {
        closeOpen(base - 1, false);
        if (st.depth > 0 && segment.lines.length > 0) cur.open = { opener: headerOpener, start: base, inferred: true };
      }
    } else {
      closeOpen(base - 1, false);
    }

    segment.lines.forEach((text, i) => {
      const index = base + i;
      const lexical = !st.heredoc && !st.blockComment;
      if (segment.estimate && lexical) applySafetyNets(text, st, () => closeOpen(index - 1, false));
      const before = st.depth;
      if (before === 0 && lexical && !cur.open) {
        const opener = parseBlockOpener(text);
        if (opener) cur.open = { opener, start: index, inferred: false };
      }
      scanLine(text, st);
      if (cur.open && st.depth <= 0) {
        if (before > 0) closeOpen(index, true);
        else if (!cur.open.inferred) closeOpen(index, st.depth === 0 && text.includes('}')); // `variable "x" {}`
      }
      if (st.depth < 0) st.depth = 0;
    });
    base += segment.lines.length;
  }
  closeOpen(base - 1, false);
  return spans;
}

interface OpenBlock {
  readonly opener: BlockOpener | null;
  readonly start: number;
  readonly inferred: boolean;
}

function applySafetyNets(text: string, st: LexState, closeCurrent: () => void): void {
  if (st.depth > 0 && /^\S/.test(text) && parseBlockOpener(text)) {
    closeCurrent();
    st.depth = 0;
  } else if (st.depth > 1 && /^\}\s*$/.test(text)) {
    st.depth = 1;
  }
}

/** Bracket depth before the first non-blank line, from its indentation (2 spaces per level). */
function estimateDepth(lines: readonly string[]): number {
  const first = lines.find((l) => l.trim() !== '');
  if (first === undefined) return 0;
  const indent = /^[ \t]*/.exec(first)![0].replace(/\t/g, '  ').length;
  const closes = /^[ \t]*[}\])]/.test(first) ? 1 : 0;
  return Math.floor(indent / 2) + closes;
}

/** Advances the lexer state over one line (mutates `st`). */
function scanLine(text: string, st: LexState): void {
  if (st.heredoc !== null) {
    if (text.trim() === st.heredoc) st.heredoc = null;
    return;
  }
  // Stack of open string/interpolation contexts on this line; brackets count only when empty.
  const stack: { mode: 'str' | 'interp'; braces: number }[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    const next = text[i + 1];
    if (st.blockComment) {
      if (c === '*' && next === '/') {
        st.blockComment = false;
        i += 1;
      }
      continue;
    }
    const top = stack[stack.length - 1];
    if (top?.mode === 'str') {
      if (c === '\\') i += 1;
      else if (c === '"') stack.pop();
      else if ((c === '$' || c === '%') && next === c)
        i += 1; // `$${` / `%%{` escapes
      else if ((c === '$' || c === '%') && next === '{') {
        stack.push({ mode: 'interp', braces: 0 });
        i += 1;
      }
      continue;
    }
    if (c === '#' || (c === '/' && next === '/')) break;
    if (c === '/' && next === '*') {
      st.blockComment = true;
      i += 1;
      continue;
    }
    if (c === '"') {
      stack.push({ mode: 'str', braces: 0 });
      continue;
    }
    if (top?.mode === 'interp') {
      if (c === '{') top.braces += 1;
      else if (c === '}') {
        if (top.braces === 0) stack.pop();
        else top.braces -= 1;
      }
      continue;
    }
    if (c === '<' && next === '<') {
      const m = /^<<-?([A-Za-z_][\w-]*)\s*$/.exec(text.slice(i));
      if (m) {
        st.heredoc = m[1];
        break;
      }
    }
    if (c === '{' || c === '[' || c === '(') st.depth += 1;
    else if (c === '}' || c === ']' || c === ')') st.depth -= 1;
  }
}
