import type { ReportInputFinding, ReportInputResource } from '../../engine/src/report/model';

/** Test factory: one open HIGH finding on `aws_s3_bucket.logs`; `overrides` replace fields. */
export function buildFinding(overrides: Partial<ReportInputFinding> = {}): ReportInputFinding {
  return {
    rule_id: 'S3-001',
    title: 'Bucket is public',
    severity: 'HIGH',
    confidence: 'HIGH',
    risk: 'Anyone can read the bucket.',
    why_it_matters: 'Data leaks.',
    suggested_next_step: 'Block public access.',
    evidence: ['acl = "public-read"'],
    resource_address: 'aws_s3_bucket.logs',
    tags: ['s3'],
    status: 'open',
    ...overrides,
  };
}

/** Test factory: the `logs` bucket resource holding one `buildFinding()`. */
export function buildResource(overrides: Partial<ReportInputResource> = {}): ReportInputResource {
  return {
    hash: 'h-logs',
    type: 'aws_s3_bucket',
    name: 'logs',
    action: 'create',
    analyzer: 'terraform',
    summary: 'A bucket.',
    findings: [buildFinding()],
    ...overrides,
  };
}
