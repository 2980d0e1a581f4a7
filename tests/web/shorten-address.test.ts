import { describe, expect, it } from 'vitest';
import { shortenMiddle } from '../../apps/web/src/findings/shorten';

describe('long addresses shortened in the middle (findings table)', () => {
  it('keeps the first module and the type and name of a resource address', () => {
    expect(shortenMiddle('module.vpc.module.subnets.aws_subnet.private[2]', 40)).toBe('module.vpc…aws_subnet.private[2]');
    expect(shortenMiddle('aws_s3_bucket.logs', 40)).toBe('aws_s3_bucket.logs'); // short: whole
  });

  it('never splits inside brackets or quotes, and stays within the limit', () => {
    const address = 'module.a.module.b.module.c.aws_iam_role.r["x.y.z"]';
    expect(shortenMiddle(address, 32)).toBe('module.a…aws_iam_role.r["x.y.z"]');
    for (const max of [8, 12, 20, 28]) expect(shortenMiddle(address, max).length).toBeLessThanOrEqual(max);
  });

  it('shortens other text around its middle', () => {
    expect(shortenMiddle('Deployment/default/payments-api-with-a-long-name', 20)).toBe('Deployment…long-name');
  });
});
