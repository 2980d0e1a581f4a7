import type { EngineContext } from '../context/engine-context';
import { metricsSummary } from '../telemetry/spans';
import { roundUsd } from '../usage/pricing';
import { monthWindow } from '../usage/usage-service';

/**
 * GET /admin/usage (identity-api.md "Platform administration"): the current UTC month's LLM
 * spend across orgs. `{period: 'YYYY-MM', total_cost_usd, by_org:[{org_id, name, cost_usd}]}`.
 */
export async function platformUsage(ctx: EngineContext) {
  const now = ctx.now();
  const window = monthWindow(now);
  const byOrg: { org_id: string; name: string; cost_usd: number }[] = [];
  // Each org's month counter (docs/decisions.md "Aggregate counters"), not a pass over its calls.
  for (const org of await ctx.stores.orgs.unsafeList()) {
    const totals = await ctx.stores.llmCalls.monthTotals(org.org_id, window, now);
    byOrg.push({ org_id: org.org_id, name: org.name, cost_usd: roundUsd(totals.cost_usd) });
  }
  return { period: window.period, total_cost_usd: roundUsd(byOrg.reduce((n, o) => n + o.cost_usd, 0)), by_org: byOrg };
}

/**
 * GET /admin/metrics/summary over the last `days` days (1-365): requests, resources analysed
 * (ingest spans' resource counts) and findings (analysis spans) per org and in total.
 */
export async function platformMetrics(ctx: EngineContext, days: number) {
  const byOrg: { org_id: string; name: string; requests_total: number; resources_analyzed_total: number; findings_total: number }[] = [];
  for (const org of await ctx.stores.orgs.unsafeList()) {
    const m = await metricsSummary(ctx, org.org_id, days);
    const findings = Object.values(m.analysis.by_severity).reduce((n, v) => n + v, 0);
    byOrg.push({ org_id: org.org_id, name: org.name, requests_total: m.requests.total, resources_analyzed_total: m.analysis.total, findings_total: findings });
  }
  const sum = (k: 'requests_total' | 'resources_analyzed_total' | 'findings_total') => byOrg.reduce((n, o) => n + o[k], 0);
  return {
    period_days: days,
    requests_total: sum('requests_total'),
    resources_analyzed_total: sum('resources_analyzed_total'),
    findings_total: sum('findings_total'),
    by_org: byOrg,
  };
}
