import { describe, expect, it } from 'vitest';
import { CHEAPEST_TIER_USD, paidCostUsd } from './pricing';

describe('paid per-resource tiers', () => {
  it('prices each resource by the tier its rank falls in', () => {
    expect(paidCostUsd(0)).toBe(0);
    expect(paidCostUsd(1)).toBe(0.05);
    expect(paidCostUsd(1_000)).toBe(50);
    expect(paidCostUsd(1_500)).toBe(65);
    expect(paidCostUsd(10_000)).toBe(320);
    expect(paidCostUsd(50_000)).toBe(1_120);
    expect(paidCostUsd(60_000)).toBe(1_220);
    expect(CHEAPEST_TIER_USD).toBe(0.01);
    expect(() => paidCostUsd(-1)).toThrow(RangeError);
  });
});
