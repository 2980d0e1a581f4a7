/**
 * Content sniffing for non-diff blobs (analysis-api.md "What the service does" 2: optional
 * content-sniffing hook; ingest/auto: "a non-diff blob is matched by each analyzer's sniff hook").
 * Confidences: plan JSON 0.95, plan text 0.9, resource/data blocks 0.8, other Terraform blocks 0.6.
 */
import type { SniffResult } from '../../core/unit';
import { looksLikePlanJson } from './plan-json';
import { looksLikePlanText } from './plan-text';

export const TF_KIND = {
  planJson: 'terraform-plan-json',
  planText: 'terraform-plan-text',
  hcl: 'terraform-hcl',
} as const;

const RESOURCE_BLOCK_RE = /^[ \t]*(resource|data)[ \t]+"[\w-]+"[ \t]+"[\w-]+"[ \t]*\{/m;
const OTHER_BLOCK_RE = /^[ \t]*((module|variable|output|provider)[ \t]+"[\w-]+"|terraform|locals)[ \t]*\{/m;

/** Recognises Terraform plan JSON, plan text and HCL configuration; null = not Terraform. */
export function sniffTerraform(content: string): SniffResult | null {
  if (looksLikePlanJson(content)) return { kind: TF_KIND.planJson, confidence: 0.95 };
  if (looksLikePlanText(content)) return { kind: TF_KIND.planText, confidence: 0.9 };
  if (RESOURCE_BLOCK_RE.test(content)) return { kind: TF_KIND.hcl, confidence: 0.8 };
  if (OTHER_BLOCK_RE.test(content)) return { kind: TF_KIND.hcl, confidence: 0.6 };
  return null;
}

/** True when the text holds at least one recognisable Terraform configuration block. */
export function looksLikeHcl(content: string): boolean {
  return RESOURCE_BLOCK_RE.test(content) || OTHER_BLOCK_RE.test(content);
}
