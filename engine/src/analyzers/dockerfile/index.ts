/**
 * The `dockerfile` analyzer (analysis-api.md "What the service does" 2; contract in ../types.ts).
 * Reads Dockerfiles/Containerfiles and those inside unified diffs: one unit per build stage
 * (stages.ts; diff handling and its limits in ../common/diff-units.ts).
 */
import { ValidationError } from '../../core/errors';
import { decodeText } from '../../core/decode';
import { diffFileUnits } from '../common/diff-units';
import type { AnalysisUnit, Analyzer, DiffFile } from '../../core/unit';
import { sniffDockerfile, stageUnits } from './stages';

export const DOCKERFILE_ANALYZER_NAME = 'dockerfile';

/** Whole Dockerfile → one unit per stage. Throws ValidationError for empty input or a non-Dockerfile. */
function ingest(raw: string, options: { path?: string } = {}): AnalysisUnit[] {
  const text = decodeText(raw);
  if (text.trim() === '') throw new ValidationError('The input is empty');
  return stageUnits(text, options.path, DOCKERFILE_ANALYZER_NAME);
}

function ingestDiffFile(file: DiffFile): AnalysisUnit[] {
  return diffFileUnits(file, {
    analyzer: DOCKERFILE_ANALYZER_NAME,
    ingestWhole: (text, path) => stageUnits(text, path, DOCKERFILE_ANALYZER_NAME),
    changeType: 'dockerfile_change',
    fileKind: 'Dockerfile',
  });
}

export const dockerfileAnalyzer: Analyzer = {
  name: DOCKERFILE_ANALYZER_NAME,
  description: 'Dockerfiles and Containerfiles: one unit per build stage',
  version: '1.0.0',
  fileGlobs: ['**/Dockerfile', '**/Dockerfile.*', '**/*.Dockerfile', '**/*.dockerfile', '**/Containerfile', '**/Containerfile.*'],
  sniffsDiffFiles: true,
  defaultRuleVariant: 'default',
  ruleVariants: ['default'],
  sniff: sniffDockerfile,
  ingest,
  ingestDiffFile,
};
