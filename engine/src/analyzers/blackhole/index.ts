/**
 * The generic fallback analyzer `blackhole` (analysis-api.md "What the service does" 2: claims
 * any input no other analyzer claims, best-effort, flagged as fallback by auto-routing).
 * It does not parse anything: a blob becomes one unit per ≤ 400-line chunk, a diff file one unit
 * per ≤ 400-line group of hunks (chunk.ts). Action: a blob is reviewed as new content (`create`);
 * a diff file follows its status (added → create, deleted → destroy, otherwise update).
 */
import { ValidationError } from '../../core/errors';
import { decodeText } from '../../core/decode';
import { renderHunks } from '../../core/diff';
import { hashUnit } from '../../core/hash';
import type { AnalysisUnit, Analyzer, DiffFile, UnitAction } from '../../core/unit';
import { lineRanges, packHunks } from './chunk';
import { guessFileKind } from './file-kind';

export const BLACKHOLE_ANALYZER_NAME = 'blackhole';

/** Blob → units (one per chunk). Throws ValidationError on empty input. */
function ingest(raw: string, options: { path?: string } = {}): AnalysisUnit[] {
  const text = decodeText(raw).replace(/\r\n?/g, '\n');
  if (text.trim() === '') throw new ValidationError('The input is empty');
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const type = guessFileKind(options.path, text);
  const base = options.path ?? 'input';
  const ranges = lineRanges(lines.length);
  return ranges.map(([start, end], i) => {
    const name = ranges.length > 1 ? `${base} (lines ${start + 1}-${end + 1})` : base;
    const unit = { type, name, action: 'create' as UnitAction, body: lines.slice(start, end + 1).join('\n') };
    return {
      ...unit,
      hash: hashUnit({ analyzer: BLACKHOLE_ANALYZER_NAME, ...unit }),
      metadata: { source: 'blob', path: options.path ?? null, chunk: i + 1, chunks: ranges.length, start_line: start + 1, end_line: end + 1 },
    };
  });
}

/** Diff file → units (one per hunk group); [] for a file without hunks (binary, pure rename). */
function ingestDiffFile(file: DiffFile): AnalysisUnit[] {
  const action: UnitAction = file.status === 'added' ? 'create' : file.status === 'deleted' ? 'destroy' : 'update';
  const groups = packHunks(file.hunks);
  const type = guessFileKind(file.path);
  const renamed = file.oldPath ? ` (renamed from ${file.oldPath})` : '';
  return groups.map((hunks, i) => {
    const name = groups.length > 1 ? `${file.path} (part ${i + 1} of ${groups.length})` : file.path;
    const body = [`# file: ${file.path}${renamed} (${file.status}; '+' added, '-' removed)`, renderHunks(hunks)].join('\n');
    const unit = { type, name, action, body };
    return {
      ...unit,
      hash: hashUnit({ analyzer: BLACKHOLE_ANALYZER_NAME, ...unit }),
      metadata: { source: 'diff', path: file.path, status: file.status, chunk: i + 1, chunks: groups.length },
    };
  });
}

export const blackholeAnalyzer: Analyzer = {
  name: BLACKHOLE_ANALYZER_NAME,
  description: 'Generic fallback: reviews any input no other analyzer claims (best-effort)',
  version: '1.0.0',
  fileGlobs: ['**/*'],
  defaultRuleVariant: 'default',
  ruleVariants: ['default'],
  isFallback: true,
  ingest,
  ingestDiffFile,
};
