/**
 * The `cloudformation` analyzer (analysis-api.md "What the service does" 2; contract in
 * ../types.ts). Reads CloudFormation/SAM templates in YAML (short-form `!Ref`, `!Sub`, ...
 * included) or JSON, and templates inside unified diffs: one unit per resource (template.ts;
 * diff handling and its limits in ../common/diff-units.ts).
 */
import { ValidationError } from '../../core/errors';
import { decodeText } from '../../core/decode';
import { diffFileUnits } from '../common/diff-units';
import type { AnalysisUnit, Analyzer, DiffFile } from '../../core/unit';
import { sniffTemplate, templateUnits } from './template';

export const CLOUDFORMATION_ANALYZER_NAME = 'cloudformation';

/** Whole template → one unit per resource. Throws ValidationError for empty input or a non-template. */
function ingest(raw: string, options: { path?: string } = {}): AnalysisUnit[] {
  const text = decodeText(raw);
  if (text.trim() === '') throw new ValidationError('The input is empty');
  return templateUnits(text, options.path, CLOUDFORMATION_ANALYZER_NAME);
}

function ingestDiffFile(file: DiffFile): AnalysisUnit[] {
  return diffFileUnits(file, {
    analyzer: CLOUDFORMATION_ANALYZER_NAME,
    ingestWhole: (text, path) => templateUnits(text, path, CLOUDFORMATION_ANALYZER_NAME),
    changeType: 'cloudformation_template_change',
    fileKind: 'CloudFormation template',
  });
}

export const cloudformationAnalyzer: Analyzer = {
  name: CLOUDFORMATION_ANALYZER_NAME,
  description: 'AWS CloudFormation and SAM templates (YAML with short-form intrinsics, or JSON): one unit per resource',
  version: '1.0.0',
  fileGlobs: [
    '**/*.template',
    '**/*.cfn.{yaml,yml,json}',
    '**/*.cf.{yaml,yml,json}',
    '**/cloudformation/**/*.{yaml,yml,json,template}',
    '**/cfn/**/*.{yaml,yml,json,template}',
    '**/template.{yaml,yml}',
  ],
  sniffsDiffFiles: true,
  defaultRuleVariant: 'default',
  ruleVariants: ['default'],
  sniff: sniffTemplate,
  ingest,
  ingestDiffFile,
};
