/**
 * Diff-file ingestion for analyzers whose units are cut from a complete file (kubernetes,
 * dockerfile, github-actions, cloudformation; analysis-api.md "Ingest and client-led analysis",
 * ingest/auto).
 *
 * - An added file is complete in the diff: it is ingested whole, every unit `create`.
 * - A deleted file is complete in its pre-image: ingested whole, every unit `destroy`.
 * - A modified or renamed file shows only its hunks (git's 3 lines of context), which cannot be
 *   parsed on their own (a YAML fragment loses its parents; a Dockerfile hunk its `FROM`). It
 *   becomes one `update` unit per file: the hunks as diff text, each under its `@@` line, whose
 *   section heading is git's nearest enclosing top-level line (for YAML the top-level key, for a
 *   Dockerfile the instruction). The body says it is partial.
 * - A file whose complete image the analyzer rejects (ValidationError) also falls back to that
 *   one unit, so no change is dropped. A file without hunks (binary, pure rename) has no unit.
 */
import { ValidationError } from '../../core/errors';
import { imageText, renderHunks } from '../../core/diff';
import type { AnalysisUnit, DiffFile, UnitAction } from '../../core/unit';
import { maskUnitSecrets, secretsMetadata } from './mask-unit';
import { makeUnit, withAction } from './unit';

export interface DiffIngestOptions {
  readonly analyzer: string;
  /** Whole-file ingestion (throws ValidationError for input it cannot read). */
  readonly ingestWhole: (text: string, path: string) => AnalysisUnit[];
  /** Unit type of the per-file change unit, e.g. `kubernetes_manifest_change`. */
  readonly changeType: string;
  /** What the file holds, for the body's heading, e.g. `Kubernetes manifest`. */
  readonly fileKind: string;
}

/** Units for one diff file (see the module comment). Never throws ValidationError. */
export function diffFileUnits(file: DiffFile, options: DiffIngestOptions): AnalysisUnit[] {
  if (file.hunks.length === 0) return [];
  if (file.status === 'added' || file.status === 'deleted') {
    const image = file.status === 'added' ? 'new' : 'old';
    const action: UnitAction = file.status === 'added' ? 'create' : 'destroy';
    try {
      const units = options.ingestWhole(imageText(file, image), file.path);
      if (units.length > 0) return units.map((u) => withAction(options.analyzer, u, action, { source: 'diff' }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
    }
  }
  return [changeUnit(file, options)];
}

function changeUnit(file: DiffFile, options: DiffIngestOptions): AnalysisUnit {
  const action: UnitAction = file.status === 'added' ? 'create' : file.status === 'deleted' ? 'destroy' : 'update';
  const partial = action === 'update';
  const head = [`# file: ${file.path}`, `# ${options.fileKind} change (${action}, from a diff; '+' added, '-' removed)`];
  if (file.oldPath) head.push(`# renamed from: ${file.oldPath}`);
  if (partial) head.push("# partial: only the diff hunks are shown; each '@@' line names the nearest enclosing top-level line");
  // Hunks cannot be parsed: their secrets are masked on the text alone (mask-unit.ts maskYamlLines, secret shapes).
  const { body, secrets } = maskUnitSecrets([...head, renderHunks(file.hunks)].join('\n'), undefined);
  const newStart = file.hunks[0].newStart;
  return makeUnit(
    options.analyzer,
    { type: options.changeType, name: file.path, action, body },
    { source: 'diff', path: file.path, partial, new_start: newStart, old_start: file.hunks[0].oldStart, ...secretsMetadata(secrets) },
  );
}
