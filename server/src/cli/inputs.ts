import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { BUILT_IN_ANALYZERS } from '@planwarden/engine/analyzers/registry';
import { ValidationError } from '@planwarden/engine/core/errors';
import { decodeText } from '@planwarden/engine/core/decode';
import { autoRoute } from '@planwarden/engine/ingest/auto-route';
import { CliError } from './errors';
import { createProgress, type ProgressStream } from './progress';

/**
 * What `planwarden analyze PATH` sends: one file as it is, or a directory's files as one
 * unified diff of new files, so that the engine's auto-routing (engine/src/ingest/auto-route.ts)
 * routes each by its path (the analyzers' `fileGlobs`) or content (`sniff`) and every unit keeps
 * its file for the report, as `checkov -d` reports a directory.
 */

/** The input of one run. */
export interface AnalysisInput {
  /** The request bodies' `raw_input`, in order (one for a file; a directory's files in batches). */
  readonly bodies: readonly string[];
  /** A single file's text and its SARIF `uri`, for results without a file of their own; null for a directory. */
  readonly located: { readonly uri: string; readonly text: string } | null;
  /** A directory: the files each analyzer claimed, by analyzer name; null for a file. */
  readonly claimed: Readonly<Record<string, number>> | null;
}

/** Folders never walked: dependencies, version control, Terraform's provider cache. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.terraform']);
/** One request body of a directory run stays below the server's default `max_input_size_mb` (10 MB). */
const BATCH_CHARS = 4 * 1024 * 1024;
/** Files larger than this are not read (no analyzer's input is; generated blobs are). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** A NUL in the first bytes marks a binary file, as git decides. */
const BINARY_PROBE_BYTES = 8000;

/** `file` relative to `cwd` with `/` separators, or its absolute path when it lies outside `cwd`. */
export function artifactPath(file: string, cwd: string): string {
  const abs = resolve(cwd, file);
  const rel = relative(cwd, abs);
  const chosen = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
  return chosen.split(sep).join('/');
}

/**
 * Reads `path` (relative to `cwd`): a file becomes one body; a directory is walked (walkDirectory)
 * and the files a specific analyzer claims become new-file diffs, in batches of BATCH_CHARS.
 * Progress of a directory goes to `stderr` (a bar on a terminal). Throws CliError for a path
 * that cannot be read, an empty file, or a directory where no analyzer claims a file.
 */
export async function readAnalysisInput(path: string, cwd: string, stderr: ProgressStream): Promise<AnalysisInput> {
  const abs = resolve(cwd, path);
  const info = await stat(abs).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read ${path}: ${error.code ?? error.message}`);
  });
  if (!info.isDirectory()) {
    const bytes = await readFile(abs).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${path}: ${error.code ?? error.message}`);
    });
    const text = decodeText(bytes);
    if (text.trim() === '') throw new CliError(`${path} is empty`);
    return { bodies: [text], located: { uri: artifactPath(path, cwd), text }, claimed: null };
  }
  const files = await walkDirectory(abs);
  // Paths as the report shows them: relative to the working directory when the folder is in it.
  const inCwd = !artifactPath(abs, cwd).startsWith('/');
  const progress = createProgress(stderr, { label: 'Reading', noun: 'files', verb: 'read' });
  const claimed: Record<string, number> = {};
  const bodies: string[] = [];
  let batch = '';
  try {
    for (const [i, file] of files.entries()) {
      const shown = inCwd ? artifactPath(file, cwd) : relative(abs, file).split(sep).join('/');
      const diff = await newFileDiff(file, shown);
      const analyzer = diff === null ? null : claimingAnalyzer(diff);
      if (diff !== null && analyzer !== null) {
        claimed[analyzer] = (claimed[analyzer] ?? 0) + 1;
        if (batch !== '' && batch.length + diff.length > BATCH_CHARS) {
          bodies.push(batch);
          batch = '';
        }
        batch += diff;
      }
      progress.update(i + 1, files.length, shown);
    }
  } finally {
    progress.stop();
  }
  if (batch !== '') bodies.push(batch);
  if (bodies.length === 0)
    throw new CliError(`no file in ${path} is one an analyzer reads (Terraform, Kubernetes, Dockerfile, GitHub Actions, CloudFormation)`);
  return { bodies, located: null, claimed };
}

/**
 * Every regular file under `root`, sorted, skipping SKIPPED_DIRS, symbolic links and what the
 * `.gitignore` files of `root` and its folders exclude (each read with the `ignore` package,
 * relative to its own folder, as git reads them).
 */
export async function walkDirectory(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string, rules: readonly { base: string; ig: Ignore }[]): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    const own = await readFile(join(dir, '.gitignore'), 'utf8').catch(() => null);
    const active = own === null ? rules : [...rules, { base: dir, ig: ignore().add(own) }];
    const ignored = (abs: string, isDir: boolean) =>
      active.some(({ base, ig }) => ig.ignores(`${relative(base, abs).split(sep).join('/')}${isDir ? '/' : ''}`));
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !ignored(abs, true)) await visit(abs, active);
      } else if (entry.isFile() && !ignored(abs, false)) {
        out.push(abs);
      }
    }
  };
  await visit(root, []);
  return out;
}

/** The file as a unified diff that adds it at `path`; null for an empty, binary or oversized file. */
async function newFileDiff(file: string, path: string): Promise<string | null> {
  const info = await stat(file);
  if (info.size === 0 || info.size > MAX_FILE_BYTES) return null;
  const bytes = await readFile(file);
  if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return null;
  const lines = decodeText(bytes).split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return null;
  return `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n+${lines.join('\n+')}\n`;
}

const SPECIFIC_ANALYZERS = BUILT_IN_ANALYZERS.filter((a) => !a.isFallback);

/**
 * The analyzer the engine's auto-routing gives a one-file diff when the fallback is left out, or
 * null when none claims it (no glob, no sniff) or the one that does cannot read it.
 */
function claimingAnalyzer(diff: string): string | null {
  try {
    return autoRoute(diff, SPECIFIC_ANALYZERS, () => true).detections[0]?.analyzer ?? null;
  } catch (error) {
    if (error instanceof ValidationError) return null;
    throw error;
  }
}
