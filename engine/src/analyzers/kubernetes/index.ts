/**
 * The `kubernetes` analyzer (analysis-api.md "What the service does" 2; contract in ../types.ts).
 * Reads Kubernetes manifests (multi-document YAML, Helm-rendered output, JSON) and manifests
 * inside unified diffs. Units and their limits: manifest.ts, ../common/diff-units.ts; a diff file
 * whose hunks lack `apiVersion`/`kind` is still claimed by its name or other hunks (diff-claim.ts).
 */
import { ValidationError } from '../../core/errors';
import { decodeText } from '../../core/decode';
import { diffFileUnits } from '../common/diff-units';
import type { AnalysisUnit, Analyzer, DiffFile } from '../../core/unit';
import { claimManifestDiffFile } from './diff-claim';
import { manifestUnits, sniffManifest } from './manifest';

export const KUBERNETES_ANALYZER_NAME = 'kubernetes';

/** Whole manifest → one unit per object. Throws ValidationError for empty input, bad YAML or no object. */
function ingest(raw: string, options: { path?: string } = {}): AnalysisUnit[] {
  const text = decodeText(raw);
  if (text.trim() === '') throw new ValidationError('The input is empty');
  return manifestUnits(text, options.path, KUBERNETES_ANALYZER_NAME);
}

function ingestDiffFile(file: DiffFile): AnalysisUnit[] {
  return diffFileUnits(file, {
    analyzer: KUBERNETES_ANALYZER_NAME,
    ingestWhole: (text, path) => manifestUnits(text, path, KUBERNETES_ANALYZER_NAME),
    changeType: 'kubernetes_manifest_change',
    fileKind: 'Kubernetes manifest',
  });
}

export const kubernetesAnalyzer: Analyzer = {
  name: KUBERNETES_ANALYZER_NAME,
  description: 'Kubernetes manifests (multi-document YAML, Helm-rendered output): one unit per object',
  version: '1.0.0',
  fileGlobs: [
    '**/k8s/**/*.{yaml,yml}',
    '**/kubernetes/**/*.{yaml,yml}',
    '**/kubernetes-manifests/**/*.{yaml,yml}',
    '**/manifests/**/*.{yaml,yml}',
    '**/kustomize/**/*.{yaml,yml}',
    '**/*.k8s.{yaml,yml}',
  ],
  sniffsDiffFiles: true,
  defaultRuleVariant: 'default',
  ruleVariants: ['default'],
  sniff: sniffManifest,
  claimDiffFile: claimManifestDiffFile,
  ingest,
  ingestDiffFile,
};
