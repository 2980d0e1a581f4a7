/**
 * Analyzer plug-in contract (analysis-api.md "What the service does" item 2, "Analysis unit",
 * "Detection entry").
 */

/** analysis-api.md "Analysis unit". */
export interface AnalysisUnit {
  /** Stable content hash (hex SHA-256); see `hashUnit` in ingest/hash.ts. */
  readonly hash: string;
  /** Resource type from the input, e.g. `aws_s3_bucket`. */
  readonly type: string;
  /** Resource name; for Terraform the full address, e.g. `module.vpc.aws_subnet.private[0]`. */
  readonly name: string;
  /** create, update, destroy or no-op (a replace is `update` with metadata.replace true). */
  readonly action: UnitAction;
  /** The full block the model analyses (sensitive values already redacted). */
  readonly body: string;
  /** Parser-level metadata; auto-routed units carry `analyzer`. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

export type UnitAction = 'create' | 'update' | 'destroy' | 'no-op';

/** A file of a unified diff, as given to analyzers. Paths are the post-image path (pre-image for deletions). */
export interface DiffFile {
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** Pre-image path when it differs from `path` (renames). Addition for ingest/diff.ts. */
  readonly oldPath?: string;
  /** Hunks in file order; their lines carry context, added and removed lines with line numbers. */
  readonly hunks: readonly DiffHunk[];
}

export interface DiffHunk {
  readonly newStart: number;
  readonly oldStart: number;
  /**
   * Section heading git prints after the second `@@` (e.g. `resource "aws_s3_bucket" "b" {`):
   * names the block a hunk starts inside. Empty string when absent. Addition for ingest/diff.ts.
   */
  readonly header?: string;
  /** Each line with its marker: ' ' context, '+' added, '-' removed. */
  readonly lines: readonly { readonly marker: ' ' | '+' | '-'; readonly text: string; readonly newLine: number | null; readonly oldLine: number | null }[];
}

export interface SniffResult {
  /** What the content looks like, e.g. `terraform-plan-json`. */
  readonly kind: string;
  /** 0..1 */
  readonly confidence: number;
}

export interface Analyzer {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** micromatch globs matched against diff file paths. */
  readonly fileGlobs: readonly string[];
  /** Rule variant used when none is asked for; null when the analyzer has no rules. */
  readonly defaultRuleVariant: string | null;
  /** True only for the generic fallback analyzer (`blackhole`). */
  readonly isFallback?: boolean;
  /** Content sniffing for a non-diff blob; null = not mine. */
  sniff?(content: string): SniffResult | null;
  /**
   * True: a diff file that no analyzer's globs claim is also offered to `sniff`, on the text the
   * diff shows of it (post-image; pre-image for deletions), so a manifest named `app.yaml` is
   * still claimed by content. For analyzers whose files carry generic names (`.yaml`, `.json`);
   * analyzers whose sniff would misfire on prose (HCL examples in a README) leave it unset.
   */
  readonly sniffsDiffFiles?: boolean;
  /**
   * Last resort for a modified or renamed diff file that neither globs nor content sniffing
   * claimed (its hunks are fragments that lack the telling keys): the analyzer may claim it by its
   * name and by the lines either image shows in any hunk. Lower confidence than a sniff; null =
   * not mine. Never asked about added or deleted files, which are sniffed complete.
   */
  claimDiffFile?(file: DiffFile): SniffResult | null;
  /**
   * Splits a raw input (a whole file or tool output) into units.
   * Throws ValidationError (422) when the input cannot be parsed as anything this analyzer reads.
   * Absent = the analyzer has no ingestion (501).
   */
  ingest?(raw: string, options?: { path?: string }): AnalysisUnit[];
  /** Units for one file of a unified diff (only the blocks the diff touches). */
  ingestDiffFile?(file: DiffFile): AnalysisUnit[];
  /** Rule variants this analyzer ships (Markdown files). Empty/absent = no rules (501). */
  readonly ruleVariants?: readonly string[];
  /**
   * The variant that fits one unit best when the caller asked for none (e.g. `aws` for an
   * `aws_s3_bucket`); null = `defaultRuleVariant`. Lets provider rules reach auto-routed and
   * default analyses without the caller knowing the cloud.
   */
  ruleVariantFor?(unit: Pick<AnalysisUnit, 'type' | 'metadata'>): string | null;
}
