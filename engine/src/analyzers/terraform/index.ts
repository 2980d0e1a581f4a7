/**
 * The `terraform` analyzer (analysis-api.md "What the service does" 2; contract in ../types.ts).
 * Reads plan JSON (`terraform show -json`), plan text (`terraform plan`, 0.11 to 1.x), Terraform
 * configuration files, and `.tf`/`.tfvars` files inside unified diffs.
 */
import { ValidationError } from '../../core/errors';
import { decodeText } from '../../core/decode';
import { imageText } from '../../core/diff';
import type { AnalysisUnit, Analyzer, DiffFile } from '../../core/unit';
import { terraformDiffUnits, wholeDiffFileUnit } from './diff-blocks';
import { hclFileUnits } from './hcl-file';
import { extractPlanJson, looksLikePlanJson, planJsonUnits } from './plan-json';
import { looksLikePlanText, planTextUnits } from './plan-text';
import { looksLikeHcl, sniffTerraform } from './sniff';

export const TERRAFORM_ANALYZER_NAME = 'terraform';

const HCL_PATH_RE = /\.(tf|tfvars)$/;

/**
 * Raw input → units. Order: plan JSON (also inside CI log noise), plan text, configuration.
 * Throws ValidationError for empty input, unparseable plan JSON, Terraform state JSON, or text
 * that is none of the above.
 */
function ingest(raw: string, options: { path?: string } = {}): AnalysisUnit[] {
  const text = decodeText(raw);
  if (text.trim() === '') throw new ValidationError('The input is empty');
  const name = TERRAFORM_ANALYZER_NAME;
  if (looksLikePlanJson(text)) return planJsonUnits(extractPlanJson(text), name);
  if (looksLikePlanText(text)) return planTextUnits(text, name);
  if ((options.path && HCL_PATH_RE.test(options.path)) || looksLikeHcl(text)) return hclFileUnits(text, options.path, name);
  if (text.trimStart().startsWith('{')) return planJsonUnits(extractPlanJson(text), name); // throws a precise reason
  throw new ValidationError('The input is not Terraform: expected plan JSON (`terraform show -json`), plan text (`terraform plan`) or Terraform configuration');
}

/**
 * One diff file → units. `.tf`/`.tfvars`: one unit per touched top-level block. Other matched
 * files (plan JSON/text, `.tf.json`): an added file is ingested whole; otherwise one unit with
 * the hunks. Never throws.
 */
function ingestDiffFile(file: DiffFile): AnalysisUnit[] {
  const name = TERRAFORM_ANALYZER_NAME;
  if (HCL_PATH_RE.test(file.path)) return terraformDiffUnits(file, name);
  if (file.status === 'added') {
    try {
      return ingest(imageText(file, 'new'), { path: file.path });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
    }
  }
  const unit = wholeDiffFileUnit(file, 'terraform_file', name);
  return unit ? [unit] : [];
}

/** Resource-type prefixes of the three clouds with rule variants (provider names as in the registry). */
const VARIANT_BY_TYPE_PREFIX: readonly [string, string][] = [
  ['aws_', 'aws'],
  ['azurerm_', 'azure'],
  ['azuread_', 'azure'],
  ['google_', 'gcp'],
];

/** `aws`, `azure` or `gcp` for a unit of that cloud's provider; null for any other. */
export function terraformRuleVariantFor(unit: { type: string }): string | null {
  return VARIANT_BY_TYPE_PREFIX.find(([prefix]) => unit.type.startsWith(prefix))?.[1] ?? null;
}

export const terraformAnalyzer: Analyzer = {
  name: TERRAFORM_ANALYZER_NAME,
  description: 'Terraform plans (JSON or text, 0.11 to 1.x) and Terraform configuration changes in diffs',
  version: '1.0.0',
  fileGlobs: [
    '**/*.tf',
    '**/*.tf.json',
    '**/*.tfvars',
    '**/*.tfvars.json',
    '**/*tfplan*.json',
    '**/*tfplan*.txt',
    '**/*.plan.json',
    '**/*.plan.txt',
    '**/plan.json',
    '**/plan.txt',
    '**/terraform-plan*.{json,txt}',
  ],
  defaultRuleVariant: 'default',
  ruleVariants: ['default', 'aws', 'azure', 'gcp'],
  ruleVariantFor: terraformRuleVariantFor,
  sniff: sniffTerraform,
  ingest,
  ingestDiffFile,
};
