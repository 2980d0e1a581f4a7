/**
 * Per-resource prices of the paid plan (analysis-api.md "Usage document": degressive
 * per-resource price over the whole resource_count, from the first resource; docs/decisions.md).
 * Graduated tiers: each resource is priced by the tier its rank in the month falls in.
 */
export interface PriceTier {
  /** Resources up to and including this rank are priced at `usd`; null = no upper bound. */
  readonly upTo: number | null;
  readonly usd: number;
}

export const PAID_TIERS: readonly PriceTier[] = [
  { upTo: 1_000, usd: 0.05 },
  { upTo: 10_000, usd: 0.03 },
  { upTo: 50_000, usd: 0.02 },
  { upTo: null, usd: 0.01 },
];

/** The cheapest tier's price (enterprise overage). */
export const CHEAPEST_TIER_USD = Math.min(...PAID_TIERS.map((t) => t.usd));

/** Rounds a USD amount to 6 decimals (sums of many small per-call costs). */
export function roundUsd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * Graduated price of `resources` resources over PAID_TIERS, e.g. 1,500 resources =
 * 1,000 × 0.05 + 500 × 0.03 = 65.00. Throws RangeError for a negative or non-integer count.
 */
export function paidCostUsd(resources: number): number {
  if (!Number.isInteger(resources) || resources < 0) throw new RangeError('resources must be a non-negative integer');
  let remaining = resources;
  let floor = 0;
  let cost = 0;
  for (const tier of PAID_TIERS) {
    if (remaining <= 0) break;
    const size = tier.upTo === null ? remaining : Math.min(remaining, tier.upTo - floor);
    cost += size * tier.usd;
    remaining -= size;
    floor = tier.upTo ?? floor;
  }
  return roundUsd(cost);
}
