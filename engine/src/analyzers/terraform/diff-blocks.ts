/**
 * Terraform configuration (`.tf`, `.tfvars`) inside a unified diff → one unit per top-level block
 * touched by a hunk (analysis-api.md "Analysis unit"; ingest/auto splits diffs per file).
 *
 * What a diff can and cannot show (limits of this unit kind):
 * - Only the lines inside the hunks are known (git's default 3 lines of context). A block longer
 *   than its hunks is shown partially; unseen parts are marked with a ` ...` line and the body
 *   says so. A block that starts above a hunk is named from git's hunk heading (the last
 *   unindented line before the hunk), which is reliable for `terraform fmt`-formatted files.
 * - The starting bracket depth of a hunk is guessed from indentation (see hcl-blocks.ts).
 * - Nothing outside the file is known: variable values, module sources and the provider's
 *   defaults are not resolved, and the action is the configuration change, not what a plan
 *   would do (a renamed resource is shown as destroy + create; `count`/`for_each` are not expanded).
 *
 * Action per block: only in the post-image → create; only in the pre-image → destroy; in both →
 * update. Every top-level kind is a unit (resource, data, module, variable, output, provider,
 * locals, terraform, ...): security-relevant changes live in locals and providers too (corpus
 * diff-tf/tf-aws-eks-de8c550d changes only a `locals` map of security-group rules).
 * Changed lines outside any recognised block (`.tfvars` assignments, blocks whose header is
 * unknown) go to one fragment unit per file so no change is silently dropped.
 *
 * Values (hcl-values.ts): a created or updated `resource` block whose post-image lies whole inside
 * one hunk carries the `values` of that post-image, in a plan unit's shape. A block only partly
 * shown carries none (what the hunks leave out is not known), nor does a removed block: its
 * removal may be a rename with a `moved` block elsewhere, which only a plan tells apart. The
 * checks that read values are skipped on those, as before.
 */
import { maskedTextUnit } from './masked-unit';
import { renderHunks, type DiffLine } from '../../core/diff';
import type { AnalysisUnit, DiffFile, UnitAction } from '../../core/unit';
import { findTopLevelBlocks, type BlockSpan, type LineSegment } from './hcl-blocks';
import { hclBlocksValues } from './hcl-values';

interface Item extends DiffLine {
  readonly hunk: number;
}

type Image = 'new' | 'old';

type ImageBlock = BlockSpan;

/** Builds units for one `.tf`/`.tfvars` file of a diff. Never throws; may return []. */
export function terraformDiffUnits(file: DiffFile, analyzer: string): AnalysisUnit[] {
  const items: Item[] = file.hunks.flatMap((h, hunk) => h.lines.map((l) => ({ ...l, hunk })));
  const newBlocks = file.status === 'deleted' ? [] : imageBlocks(file, items, 'new');
  const oldBlocks = file.status === 'added' ? [] : imageBlocks(file, items, 'old');
  const pending: { block: ImageBlock; span: { start: number; end: number }; action: UnitAction }[] = [];
  const covered = new Set<number>();
  const matchedOld = new Set<ImageBlock>();

  const oldByName = byName(oldBlocks);
  const newByName = byName(newBlocks);

  for (const block of newBlocks) {
    if (!block.opener) continue;
    const twin = oldByName.get(block.opener.name)?.find((o) => overlaps(o, block) && !matchedOld.has(o));
    if (twin) matchedOld.add(twin);
    const span = twin ? { start: Math.min(block.start, twin.start), end: Math.max(block.end, twin.end) } : block;
    const action: UnitAction = twin ? 'update' : 'create';
    const changed = changedIn(items, span, twin ? null : '+');
    if (changed.length === 0) continue;
    for (const i of changed) covered.add(i);
    pending.push({ block, span, action });
  }
  for (const block of oldBlocks) {
    if (!block.opener || matchedOld.has(block)) continue;
    if (newByName.get(block.opener.name)?.some((n) => overlaps(n, block))) continue; // shown by its twin
    const changed = changedIn(items, block, '-');
    if (changed.length === 0) continue;
    for (const i of changed) covered.add(i);
    pending.push({ block, span: block, action: 'destroy' });
  }
  const values = hclBlocksValues(pending.map(({ block, action }) => postImage(items, block, action)));
  const units = pending.map(({ block, span, action }, i) => blockUnit(file, items, block, span, action, analyzer, values[i]));
  const fragment = fragmentUnit(file, items, covered, analyzer);
  if (fragment) units.push(fragment);
  return units;
}

/**
 * The post-image of a created or updated block as configuration text, when the hunks show it
 * whole (its opener, its closing bracket, no gap between hunks); otherwise no kind, so no values.
 */
function postImage(items: readonly Item[], block: ImageBlock, action: UnitAction): { kind: string; labels: readonly string[]; text: string } {
  const opener = block.opener;
  const whole = action !== 'destroy' && opener !== null && block.closed && !block.inferred && items[block.start].hunk === items[block.end].hunk;
  if (!whole) return { kind: '', labels: [], text: '' };
  const text = items
    .slice(block.start, block.end + 1)
    .filter((item) => item.marker !== '-')
    .map((item) => item.text)
    .join('\n');
  return { kind: opener.kind, labels: opener.labels, text };
}

function byName(blocks: readonly ImageBlock[]): Map<string, ImageBlock[]> {
  const map = new Map<string, ImageBlock[]>();
  for (const block of blocks) {
    if (!block.opener) continue;
    const list = map.get(block.opener.name) ?? [];
    list.push(block);
    map.set(block.opener.name, list);
  }
  return map;
}

/** Blocks of one image, with spans mapped back to indices into `items`. */
function imageBlocks(file: DiffFile, items: readonly Item[], image: Image): ImageBlock[] {
  const skip = image === 'new' ? '-' : '+';
  const indexMap: number[] = [];
  const perHunk: string[][] = file.hunks.map(() => []);
  items.forEach((item, i) => {
    if (item.marker !== skip) {
      perHunk[item.hunk].push(item.text);
      indexMap.push(i);
    }
  });
  const segments: LineSegment[] = file.hunks.map((h, hunk) => {
    const lines = perHunk[hunk];
    const wholeFile = (image === 'new' ? h.newStart : h.oldStart) <= 1 && hunk === 0;
    return { lines, estimate: !wholeFile, header: h.header };
  });
  return findTopLevelBlocks(segments).map((s) => ({
    ...s,
    start: indexMap[s.start],
    end: indexMap[s.end],
  }));
}

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start <= b.end && b.start <= a.end;
}

/** Indices of changed lines in the span (marker filter: only '+', only '-', or both when null). */
function changedIn(items: readonly Item[], span: { start: number; end: number }, only: '+' | '-' | null): number[] {
  const out: number[] = [];
  for (let i = span.start; i <= span.end; i += 1) {
    const m = items[i].marker;
    if (m !== ' ' && (only === null || m === only)) out.push(i);
  }
  return out;
}

function blockUnit(
  file: DiffFile,
  items: readonly Item[],
  block: ImageBlock,
  span: { start: number; end: number },
  action: UnitAction,
  analyzer: string,
  values: Record<string, unknown> | undefined,
): AnalysisUnit {
  const opener = block.opener!;
  // create shows the post-image, destroy the pre-image, update both (diff-like).
  const hide = action === 'create' ? '-' : action === 'destroy' ? '+' : null;
  const lines: string[] = [];
  let partial = false;
  if (block.inferred) {
    lines.push(` ${headerText(file, items[span.start].hunk)}`, ' ...');
    partial = true;
  }
  let prevHunk = items[span.start].hunk;
  for (let i = span.start; i <= span.end; i += 1) {
    const item = items[i];
    if (item.marker === hide) continue;
    if (item.hunk !== prevHunk) {
      lines.push(' ...');
      partial = true;
      prevHunk = item.hunk;
    }
    lines.push(`${item.marker}${item.text}`);
  }
  if (!block.closed) {
    lines.push(' ...');
    partial = true;
  }
  const head = [`# file: ${file.path}`, `# ${opener.name} (${action}, from a diff; '+' added, '-' removed)`];
  if (partial) head.push('# partial: lines outside the diff hunks are not shown (...)');
  const body = [...head, ...lines].join('\n');
  const lineNos = items.slice(span.start, span.end + 1);
  const metadata = {
    source: 'diff',
    path: file.path,
    block_kind: opener.kind,
    address: opener.name,
    new_start: firstNumber(lineNos.map((l) => l.newLine)),
    old_start: firstNumber(lineNos.map((l) => l.oldLine)),
    partial,
    ...(values !== undefined ? { values } : {}),
  };
  const unit = { type: opener.type, name: opener.name, action, body };
  return maskedTextUnit(analyzer, unit, metadata);
}

function headerText(file: DiffFile, hunk: number): string {
  return (file.hunks[hunk].header ?? '').trim();
}

function firstNumber(values: readonly (number | null)[]): number | null {
  return values.find((v): v is number => v !== null) ?? null;
}

/** Changed, non-trivial lines no block unit covers → one unit with those hunks, or null. */
function fragmentUnit(file: DiffFile, items: readonly Item[], covered: ReadonlySet<number>, analyzer: string): AnalysisUnit | null {
  const loose = items.map((item, i) => ({ item, i })).filter(({ item, i }) => item.marker !== ' ' && !covered.has(i) && !isTrivial(item.text));
  if (loose.length === 0) return null;
  const hunks = new Set(loose.map(({ item }) => item.hunk));
  const lines: string[] = [];
  for (const hunk of hunks) {
    if (lines.length > 0) lines.push(' ...');
    if (file.hunks[hunk].header) lines.push(` ${file.hunks[hunk].header!.trim()}`, ' ...');
    for (const item of items.filter((it) => it.hunk === hunk)) lines.push(`${item.marker}${item.text}`);
  }
  const isVars = /\.tfvars(\.json)?$/.test(file.path);
  const action: UnitAction = file.status === 'added' ? 'create' : file.status === 'deleted' ? 'destroy' : 'update';
  const head = [`# file: ${file.path}`, `# changes outside recognised blocks (${action}, from a diff; '+' added, '-' removed)`];
  const unit = { type: isVars ? 'tfvars' : 'hcl_fragment', name: file.path, action, body: [...head, ...lines].join('\n') };
  return maskedTextUnit(analyzer, unit, { source: 'diff', path: file.path, partial: true });
}

function isTrivial(text: string): boolean {
  const t = text.trim();
  return t === '' || t.startsWith('#') || t.startsWith('//');
}

/**
 * One unit for a whole diff file that is not block-structured HCL (`.tf.json`, a plan file that
 * was modified): body = the hunks as diff text. Null for a file without hunks (binary, rename).
 */
export function wholeDiffFileUnit(file: DiffFile, type: string, analyzer: string): AnalysisUnit | null {
  if (file.hunks.length === 0) return null;
  const action: UnitAction = file.status === 'added' ? 'create' : file.status === 'deleted' ? 'destroy' : 'update';
  const body = [`# file: ${file.path} (${action}, from a diff; '+' added, '-' removed)`, renderHunks(file.hunks)].join('\n');
  const unit = { type, name: file.path, action, body };
  return maskedTextUnit(analyzer, unit, { source: 'diff', path: file.path, partial: file.status !== 'added' && file.status !== 'deleted' });
}
