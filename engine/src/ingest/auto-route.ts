/**
 * Auto-routing for `POST /{namespace}/ingest/auto` (analysis-api.md "Ingest and client-led
 * analysis", "Detection entry", "What the service does" 2).
 *
 * - A unified diff is split per file; a file goes to the first enabled non-fallback analyzer
 *   (registry order) whose `fileGlobs` match its path (micromatch, `dot: true`, basename matching
 *   for slash-less globs). When no glob matches, analyzers that opt in (`sniffsDiffFiles`) sniff
 *   the text the diff shows of the file (post-image; pre-image for a deletion), highest
 *   confidence first, so a manifest named `app.yaml` is claimed by content; for a modified or
 *   renamed file, then on its pre-image, then the analyzers' `claimDiffFile` (name and all hunks,
 *   lower confidence), so a hunk that lacks the telling keys still reaches its analyzer. One detection entry per diff
 *   file, deletions included.
 * - Any other input is one blob, matched by the analyzers' sniff hooks: the highest-confidence
 *   enabled analyzer wins (ties: registry order); with no sniff hit, `options.path` is matched
 *   against the globs.
 * - If the only matching analyzers are disabled for the org, the reason is `analyzer disabled for
 *   the org` (or `options.disabledReason`, e.g. a paid plan). Decision: the enabled fallback
 *   (`blackhole`) then still takes the file, and the detection keeps that reason with
 *   `fallback: true`, so the audit shows why the specific analyzer did not run.
 * - Nothing matched and no enabled fallback → the detection has `analyzer: null`, reason
 *   `unrecognised content`. When no detection got an analyzer at all → ValidationError (422).
 * - A specific analyzer rejecting its file (ValidationError) is treated like no match: the
 *   fallback takes it, reason `unrecognised content (<analyzer>: <message>)`.
 * Confidence: glob match 1; sniff or claim → its confidence; fallback 0.1; no analyzer 0.
 * `analyzers_used` lists, in first-use order, the analyzers that were given at least one file.
 * Units carry `metadata.analyzer`; duplicate hashes are dropped (first kept).
 */
import micromatch from 'micromatch';
import { ValidationError } from '../core/errors';
import { guessFileKind } from '../analyzers/blackhole/file-kind';
import type { AnalysisUnit, Analyzer, DiffFile, SniffResult } from '../core/unit';
import { decodeText } from '../core/decode';
import { imageText, looksLikeUnifiedDiff, parseUnifiedDiff } from '../core/diff';

/** analysis-api.md "Detection entry". */
export interface DetectionEntry {
  readonly path: string;
  readonly detected_kind: string;
  readonly analyzer: string | null;
  readonly confidence: number;
  readonly reason: string | null;
  readonly fallback: boolean;
}

/** Body of the ingest/auto 201 response. */
export interface AutoRouteResult {
  readonly units: AnalysisUnit[];
  readonly analyzers_used: string[];
  readonly detections: DetectionEntry[];
}

export interface AutoRouteOptions {
  /** Name of a non-diff blob (detection path and glob matching); default `input`. */
  readonly path?: string;
  /** Reason for a disabled analyzer; default `analyzer disabled for the org`. */
  readonly disabledReason?: (analyzerName: string) => string | undefined;
}

export const REASON_UNRECOGNISED = 'unrecognised content';
export const REASON_DISABLED = 'analyzer disabled for the org';
const FALLBACK_CONFIDENCE = 0.1;
const PATH_GLOB_OPTIONS = { dot: true };
const BASENAME_GLOB_OPTIONS = { dot: true, matchBase: true };

interface Candidate {
  readonly analyzer: Analyzer;
  readonly kind: string;
  readonly confidence: number;
}

interface Routed {
  readonly units: AnalysisUnit[];
  readonly detection: DetectionEntry;
}

/**
 * Routes a raw ingest body (diff or single blob; bytes or string, decoded by decode.ts) to
 * analyzers and ingests it.
 * `analyzers` in registry order; `isEnabled(name)` is the org's analyzer switch.
 * Throws ValidationError for an empty body, a diff without files, or when nothing matched an
 * enabled analyzer (and no enabled fallback exists). Other analyzer errors propagate.
 */
export function autoRoute(
  text: string | Uint8Array,
  analyzers: readonly Analyzer[],
  isEnabled: (name: string) => boolean,
  options: AutoRouteOptions = {},
): AutoRouteResult {
  const input = decodeText(text);
  if (input.trim() === '') throw new ValidationError('The input is empty');
  const ctx = { analyzers, isEnabled, options };
  const routed = looksLikeUnifiedDiff(input) ? parseUnifiedDiff(input).map((file) => routeDiffFile(file, ctx)) : [routeBlob(input, ctx)];
  const detections = routed.map((r) => r.detection);
  if (detections.every((d) => d.analyzer === null)) {
    const reasons = [...new Set(detections.map((d) => d.reason ?? REASON_UNRECOGNISED))].join('; ');
    throw new ValidationError(`Nothing in the input matched an enabled analyzer (${reasons})`);
  }
  const seen = new Set<string>();
  const units: AnalysisUnit[] = [];
  for (const unit of routed.flatMap((r) => r.units)) {
    if (seen.has(unit.hash)) continue;
    seen.add(unit.hash);
    units.push(unit);
  }
  const used = [...new Set(detections.map((d) => d.analyzer).filter((a): a is string => a !== null))];
  return { units, analyzers_used: used, detections };
}

interface Ctx {
  readonly analyzers: readonly Analyzer[];
  readonly isEnabled: (name: string) => boolean;
  readonly options: AutoRouteOptions;
}

function routeDiffFile(file: DiffFile, ctx: Ctx): Routed {
  const readers = specific(ctx).filter((a) => a.ingestDiffFile || a.ingest);
  let candidates: Candidate[] = readers.filter((a) => matchesGlobs(file.path, a)).map((a) => ({ analyzer: a, kind: a.name, confidence: 1 }));
  if (candidates.length === 0) candidates = sniffedDiffFile(file, readers);
  const run = (a: Analyzer): AnalysisUnit[] => (a.ingestDiffFile ? a.ingestDiffFile(file) : a.ingest!(imageText(file, 'new'), { path: file.path }));
  return route(file.path, candidates, guessFileKind(file.path), ctx, run);
}

/**
 * Content candidates for a diff file no glob claimed, among the analyzers that opt in
 * (`sniffsDiffFiles`): their sniff on the image the diff shows (post-image; pre-image for a
 * deletion); then, only for a modified or renamed file (whose hunks are fragments), on its
 * pre-image, whose removed lines may name what the file holds, and last their `claimDiffFile`
 * (the file's name and every hunk's lines), so a hunk deep inside `kubernetes-manifests.yaml`
 * without `apiVersion`/`kind` still reaches its analyzer.
 */
function sniffedDiffFile(file: DiffFile, readers: readonly Analyzer[]): Candidate[] {
  const sniffers = readers.filter((a) => a.sniffsDiffFiles);
  const shown = sniffed(sniffers, imageText(file, file.status === 'deleted' ? 'old' : 'new'));
  if (shown.length > 0) return shown;
  // An added or deleted file was sniffed complete: a name or a stray line must not overrule that
  // (`planwarden analyze DIR` routes whole files as added ones).
  if (file.status !== 'modified' && file.status !== 'renamed') return [];
  const before = sniffed(sniffers, imageText(file, 'old'));
  if (before.length > 0) return before;
  return ranked(sniffers, (a) => a.claimDiffFile?.(file) ?? null);
}

function routeBlob(input: string, ctx: Ctx): Routed {
  const path = ctx.options.path;
  let candidates: Candidate[] = sniffed(
    specific(ctx).filter((a) => a.ingest),
    input,
  );
  if (candidates.length === 0 && path) {
    candidates = specific(ctx)
      .filter((a) => a.ingest && matchesGlobs(path, a))
      .map((a) => ({ analyzer: a, kind: a.name, confidence: 0.5 }));
  }
  const run = (a: Analyzer): AnalysisUnit[] => a.ingest!(input, path ? { path } : {});
  return route(path ?? 'input', candidates, guessFileKind(path, input), ctx, run);
}

/** Shared decision: first enabled candidate, else the fallback, else null. */
function route(path: string, candidates: readonly Candidate[], genericKind: string, ctx: Ctx, run: (a: Analyzer) => AnalysisUnit[]): Routed {
  const chosen = candidates.find((c) => ctx.isEnabled(c.analyzer.name));
  let reason: string = REASON_UNRECOGNISED;
  let kind = candidates[0]?.kind ?? genericKind;
  if (chosen) {
    try {
      const units = tag(run(chosen.analyzer), chosen.analyzer.name);
      return {
        units,
        detection: { path, detected_kind: chosen.kind, analyzer: chosen.analyzer.name, confidence: chosen.confidence, reason: null, fallback: false },
      };
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      reason = `${REASON_UNRECOGNISED} (${chosen.analyzer.name}: ${err.message})`;
      kind = chosen.kind;
    }
  } else if (candidates.length > 0) {
    const disabled = candidates[0].analyzer.name;
    reason = ctx.options.disabledReason?.(disabled) ?? REASON_DISABLED;
  }
  const fallback = ctx.analyzers.find((a) => a.isFallback && ctx.isEnabled(a.name) && (a.ingest || a.ingestDiffFile));
  if (fallback) {
    try {
      const units = tag(run(fallback), fallback.name);
      return { units, detection: { path, detected_kind: kind, analyzer: fallback.name, confidence: FALLBACK_CONFIDENCE, reason, fallback: true } };
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      reason = `${reason} (${fallback.name}: ${err.message})`;
    }
  }
  return { units: [], detection: { path, detected_kind: kind, analyzer: null, confidence: 0, reason, fallback: false } };
}

/** Analyzers whose sniff hook claims `text`, highest confidence first (ties keep registry order). */
function sniffed(analyzers: readonly Analyzer[], text: string): Candidate[] {
  return ranked(analyzers, (a) => a.sniff?.(text) ?? null);
}

/** Analyzers that `judge` claims, highest confidence first (ties keep registry order). */
function ranked(analyzers: readonly Analyzer[], judge: (a: Analyzer) => SniffResult | null): Candidate[] {
  return analyzers
    .map((a) => ({ analyzer: a, result: judge(a) }))
    .filter((c) => c.result !== null && c.result.confidence > 0)
    .map((c) => ({ analyzer: c.analyzer, kind: c.result!.kind, confidence: c.result!.confidence }))
    .sort((x, y) => y.confidence - x.confidence); // stable: ties keep registry order
}

function specific(ctx: Ctx): Analyzer[] {
  return ctx.analyzers.filter((a) => !a.isFallback);
}

/**
 * The longest path a glob is tried on: PATH_MAX on Linux. A pull request's paths are the
 * author's, and micromatch's `**` patterns slow down with the path's length (an 80 KB path took
 * seconds on the event loop), so a longer path matches no glob and is routed by content alone.
 */
export const MAX_GLOB_PATH_LENGTH = 4096;

/**
 * Basename matching applies to slash-less globs only: micromatch's `matchBase` would otherwise
 * match every glob against the basename, so a glob naming a directory (`k8s/` anywhere in the path) never matched.
 */
function matchesGlobs(path: string, analyzer: Analyzer): boolean {
  if (path.length > MAX_GLOB_PATH_LENGTH) return false;
  return analyzer.fileGlobs.some((glob) => micromatch.isMatch(path, glob, glob.includes('/') ? PATH_GLOB_OPTIONS : BASENAME_GLOB_OPTIONS));
}

function tag(units: readonly AnalysisUnit[], analyzer: string): AnalysisUnit[] {
  return units.map((u) => ({ ...u, metadata: { ...u.metadata, analyzer } }));
}
