/**
 * The `github-actions` analyzer (analysis-api.md "What the service does" 2; contract in
 * ../types.ts). Reads workflow files and workflows inside unified diffs: one unit per job with
 * the workflow's triggers and top-level permissions as context (workflow.ts; diff handling and
 * its limits in ../common/diff-units.ts).
 */
import { ValidationError } from '../../core/errors';
import { decodeText } from '../../core/decode';
import { diffFileUnits } from '../common/diff-units';
import type { AnalysisUnit, Analyzer, DiffFile } from '../../core/unit';
import { sniffWorkflow, workflowUnits } from './workflow';

export const GITHUB_ACTIONS_ANALYZER_NAME = 'github-actions';

/** Whole workflow → one unit per job. Throws ValidationError for empty input or a non-workflow. */
function ingest(raw: string, options: { path?: string } = {}): AnalysisUnit[] {
  const text = decodeText(raw);
  if (text.trim() === '') throw new ValidationError('The input is empty');
  return workflowUnits(text, options.path, GITHUB_ACTIONS_ANALYZER_NAME);
}

function ingestDiffFile(file: DiffFile): AnalysisUnit[] {
  return diffFileUnits(file, {
    analyzer: GITHUB_ACTIONS_ANALYZER_NAME,
    ingestWhole: (text, path) => workflowUnits(text, path, GITHUB_ACTIONS_ANALYZER_NAME),
    changeType: 'github_actions_workflow_change',
    fileKind: 'GitHub Actions workflow',
  });
}

export const githubActionsAnalyzer: Analyzer = {
  name: GITHUB_ACTIONS_ANALYZER_NAME,
  description: 'GitHub Actions workflows: one unit per job, with the triggers and top-level permissions',
  version: '1.0.0',
  fileGlobs: ['**/.github/workflows/*.{yml,yaml}', '**/.gitea/workflows/*.{yml,yaml}', '**/.forgejo/workflows/*.{yml,yaml}'],
  sniffsDiffFiles: true,
  defaultRuleVariant: 'default',
  ruleVariants: ['default'],
  sniff: sniffWorkflow,
  ingest,
  ingestDiffFile,
};
