/**
 * Splitting of large inputs so one blackhole unit stays analysable: at most BLACKHOLE_MAX_LINES
 * lines per unit (~400 lines ≈ 4-8k tokens of typical config, well inside one LLM call together
 * with the ruleset, and few enough lines for evidence quoting to stay precise).
 */
import type { DiffHunk } from '../../core/unit';

export const BLACKHOLE_MAX_LINES = 400;

/** Consecutive [start, end] (0-based, inclusive) line ranges of at most `max` lines. */
export function lineRanges(lineCount: number, max = BLACKHOLE_MAX_LINES): [number, number][] {
  const out: [number, number][] = [];
  for (let start = 0; start < lineCount; start += max) out.push([start, Math.min(lineCount, start + max) - 1]);
  return out;
}

/**
 * Packs hunks greedily into groups of at most `max` rendered lines (a hunk renders as its lines
 * plus one `@@` line). A hunk longer than `max` is cut into several hunks first.
 */
export function packHunks(hunks: readonly DiffHunk[], max = BLACKHOLE_MAX_LINES): DiffHunk[][] {
  const pieces = hunks.flatMap((h) => splitHunk(h, max - 1));
  const groups: DiffHunk[][] = [];
  let current: DiffHunk[] = [];
  let size = 0;
  for (const piece of pieces) {
    const n = piece.lines.length + 1;
    if (current.length > 0 && size + n > max) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(piece);
    size += n;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function splitHunk(hunk: DiffHunk, max: number): DiffHunk[] {
  if (hunk.lines.length <= max) return [hunk];
  const out: DiffHunk[] = [];
  for (const [start, end] of lineRanges(hunk.lines.length, max)) {
    const lines = hunk.lines.slice(start, end + 1);
    const first = (pick: 'newLine' | 'oldLine', fallback: number): number => lines.find((l) => l[pick] !== null)?.[pick] ?? fallback;
    out.push({ ...hunk, lines, newStart: first('newLine', hunk.newStart), oldStart: first('oldLine', hunk.oldStart) });
  }
  return out;
}
