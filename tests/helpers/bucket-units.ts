import type { AnalysisUnit } from '../../engine/src/core/unit';

/** The `i`th of a run of distinct S3-bucket units (hash `h00042`, address `aws_s3_bucket.b42`) for storage tests. */
export function bucketUnit(i: number): AnalysisUnit {
  return {
    hash: `h${String(i).padStart(5, '0')}`,
    type: 'aws_s3_bucket',
    name: `aws_s3_bucket.b${i}`,
    action: 'create',
    body: `body ${i}`,
    metadata: { analyzer: 'terraform' },
  };
}
