/**
 * Unified diffs (`git diff`, `diff -u`) → DiffFile[] (analysis-api.md "Ingest and client-led
 * analysis", ingest/auto: "each diff file goes to the analyzer whose file_globs match").
 * Parsing is delegated to `parse-diff`; this module maps its output to the DiffFile contract in
 * analyzers/types.ts and adds the helpers analyzers need to render hunks.
 */
import parseDiff from 'parse-diff';
import { ValidationError } from './errors';
import type { DiffFile, DiffHunk } from './unit';

/** One line of a hunk (marker, text without marker, line numbers in each image). */
export type DiffLine = DiffHunk['lines'][number];

const DEV_NULL = '/dev/null';

/**
 * True when `text` looks like a unified diff: a `diff --git` line, or a `--- `/`+++ ` header pair
 * followed by a `@@ -n` hunk header. Cheap (regex only); does not validate the whole diff.
 */
export function looksLikeUnifiedDiff(text: string): boolean {
  if (/^diff --git \S/m.test(text)) return true;
  return /^--- [^\r\n]+\r?\n\+\+\+ [^\r\n]+\r?\n@@ -\d/m.test(text);
}

/**
 * Splits a unified diff into files, in diff order.
 * Paths are the post-image path (pre-image for deletions), without `a/`/`b/` prefixes; CR at
 * line ends is stripped from line text; "\ No newline at end of file" markers are dropped.
 * Throws ValidationError when the text holds no file section at all.
 */
export function parseUnifiedDiff(text: string): DiffFile[] {
  const files = parseDiff(text)
    .map(toDiffFile)
    .filter((f): f is DiffFile => f !== null);
  if (files.length === 0) throw new ValidationError('The diff contains no file sections');
  return files;
}

function toDiffFile(file: parseDiff.File): DiffFile | null {
  // parse-diff already strips the a/ b/ (and i/ w/ c/ o/) prefixes of git headers.
  const from = file.from;
  const to = file.to;
  const deleted = file.deleted === true || to === DEV_NULL;
  const added = file.new === true || from === DEV_NULL;
  const path = deleted ? from : to;
  if (!path || path === DEV_NULL) return null;
  let status: DiffFile['status'] = 'modified';
  if (added) status = 'added';
  else if (deleted) status = 'deleted';
  else if (from && to && from !== to) status = 'renamed';
  const hunks = file.chunks.map(toHunk);
  return status === 'renamed' ? { path, oldPath: from, status, hunks } : { path, status, hunks };
}

function toHunk(chunk: parseDiff.Chunk): DiffHunk {
  const lines: DiffLine[] = [];
  for (const change of chunk.changes) {
    if (change.content.startsWith('\\')) continue; // "\ No newline at end of file"
    const text = change.content.slice(1).replace(/\r$/, '');
    if (change.type === 'add') lines.push({ marker: '+', text, newLine: change.ln, oldLine: null });
    else if (change.type === 'del') lines.push({ marker: '-', text, newLine: null, oldLine: change.ln });
    else lines.push({ marker: ' ', text, newLine: change.ln2, oldLine: change.ln1 });
  }
  const header = /^@@ [^@]*@@ ?(.*)$/.exec(chunk.content)?.[1]?.replace(/\r$/, '') ?? '';
  return { newStart: chunk.newStart, oldStart: chunk.oldStart, header, lines };
}

/**
 * Renders a file's hunks as diff text: `@@ -o +n @@ header` lines followed by each line with its
 * marker. Deterministic; used as the body of whole-file units. Returns '' for a file without hunks
 * (binary files, pure renames).
 */
export function renderHunks(hunks: readonly DiffHunk[]): string {
  const out: string[] = [];
  for (const hunk of hunks) {
    const oldCount = hunk.lines.filter((l) => l.marker !== '+').length;
    const newCount = hunk.lines.filter((l) => l.marker !== '-').length;
    const header = hunk.header ? ` ${hunk.header}` : '';
    out.push(`@@ -${hunk.oldStart},${oldCount} +${hunk.newStart},${newCount} @@${header}`);
    for (const line of hunk.lines) out.push(`${line.marker}${line.text}`);
  }
  return out.join('\n');
}

/**
 * The text of one image of a file as far as the hunks show it: 'new' = context + added lines,
 * 'old' = context + removed lines, hunks joined by newlines. Complete only for added files
 * ('new') and deleted files ('old').
 */
export function imageText(file: DiffFile, image: 'new' | 'old'): string {
  const skip = image === 'new' ? '-' : '+';
  return file.hunks.flatMap((h) => h.lines.filter((l) => l.marker !== skip).map((l) => l.text)).join('\n');
}
