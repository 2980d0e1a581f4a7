import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { NotFoundError, PaymentRequiredError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import type { OrgDoc } from '../orgs/org-store';
import { CHEAPEST_TIER_USD, paidCostUsd, roundUsd } from './pricing';

/**
 * Metering (analysis-api.md "Usage document", "LLM credentials, quota, models", Limits
 * "Monthly LLM spend cap", "Demo quota"). Usage events are the LLM calls recorded by the run
 * loop (usage/llm-call-store.ts), priced from the catalogue at call time.
 */

export interface UsageSettings {
  /** A cloud deployment: free plans get the lifetime demo quota. */
  readonly cloud: boolean;
  readonly demo_analyses: number;
}
export const DEFAULT_USAGE_SETTINGS: UsageSettings = { cloud: false, demo_analyses: 100 };

export const QuotaSchema = z.object({ monthly_budget_usd: z.number().finite().min(0).nullable() }).strict();

/** An enterprise contract as kept on the org record (`contract`). */
interface Contract {
  committed_amount_usd: number | null;
  /** null = no ceiling (unlimited). */
  included_resources_per_month: number | null;
  expires_at: string | null;
}

function contractOf(org: OrgDoc): Contract {
  const c = org.contract ?? {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    committed_amount_usd: num(c.committed_amount_usd),
    included_resources_per_month: num(c.included_resources_per_month),
    expires_at: typeof c.expires_at === 'string' ? c.expires_at : null,
  };
}

/** The UTC calendar month holding `now`: `{period: 'YYYY-MM', from, to}` (ISO, [from, to)). */
export function monthWindow(now: Date): { period: string; from: string; to: string } {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { period: from.toISOString().slice(0, 7), from: from.toISOString(), to: to.toISOString() };
}

async function requireOrg(ctx: EngineContext, orgId: string): Promise<OrgDoc> {
  const org = await ctx.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  return org;
}

/**
 * Spend of the current UTC month: cost, event count and metered resources (successful calls),
 * from the month's counter document (LlmCallStore.monthTotals; docs/decisions.md "Aggregate
 * counters"), not a pass over the month's calls.
 */
async function monthSpend(ctx: EngineContext, orgId: string) {
  const now = ctx.now();
  const window = monthWindow(now);
  const totals = await ctx.stores.llmCalls.monthTotals(orgId, window, now);
  return { window, total: roundUsd(totals.cost_usd), events: totals.events, resources: totals.resources };
}

/** Every analysis job the org ever started (the demo quota's count before any admin offset). */
export async function analysesStarted(ctx: EngineContext, org: OrgDoc): Promise<number> {
  return (await ctx.stores.jobs.list(org.org_id, undefined, { limit: 1, offset: 0 })).total;
}

async function demoUsed(ctx: EngineContext, org: OrgDoc, settings: UsageSettings): Promise<number | null> {
  if (!settings.cloud || org.plan_tier !== 'free') return null;
  return Math.max(0, (await analysesStarted(ctx, org)) - (org.demo_analyses_offset ?? 0));
}

/**
 * GET /orgs/{org_id}/usage: the usage document of the current UTC month. resource_count counts
 * every unit the server's LLM analysed successfully this month (a retried call counts once, a
 * re-analysis again). metered_cost_usd: free null; paid PAID_TIERS over resource_count;
 * enterprise overage beyond the included resources at the cheapest tier. Commitment fields
 * are null/0 off enterprise; demo fields only for a free org of a cloud deployment.
 */
export async function usageDocument(ctx: EngineContext, orgId: string, settings: UsageSettings = DEFAULT_USAGE_SETTINGS) {
  const org = await requireOrg(ctx, orgId);
  const spend = await monthSpend(ctx, orgId);
  const budget = org.quota?.monthly_budget_usd ?? null;
  const enterprise = org.plan_tier === 'enterprise';
  const contract = contractOf(org);
  const included = enterprise ? contract.included_resources_per_month : null;
  const overage = enterprise && included !== null ? Math.max(0, spend.resources - included) : 0;
  let metered: number | null = null;
  if (org.plan_tier === 'paid') metered = paidCostUsd(spend.resources);
  if (enterprise) metered = roundUsd(overage * CHEAPEST_TIER_USD);
  const used = await demoUsed(ctx, org, settings);
  return {
    period: spend.window.period,
    total_cost_usd: spend.total,
    budget_usd: budget,
    remaining_usd: budget === null ? null : roundUsd(Math.max(0, budget - spend.total)),
    event_count: spend.events,
    resource_count: spend.resources,
    metered_cost_usd: metered,
    included_resources_per_month: included,
    included_resources_remaining: enterprise && included !== null ? Math.max(0, included - spend.resources) : null,
    overage_resources: overage,
    committed_amount_usd: enterprise ? contract.committed_amount_usd : null,
    contract_expired: enterprise && contract.expires_at !== null && contract.expires_at <= ctx.now().toISOString(),
    demo_analyses_used: used,
    demo_analyses_remaining: used === null ? null : Math.max(0, settings.demo_analyses - used),
  };
}

/** PATCH /orgs/{org_id}/quota: null clears the cap. Audited org.quota_update. `{monthly_budget_usd}`. */
export async function setQuota(ctx: IdentityCtx, orgId: string, monthlyBudgetUsd: number | null) {
  const before = await requireOrg(ctx.engine, orgId);
  await ctx.engine.stores.orgs.update(orgId, { quota: { monthly_budget_usd: monthlyBudgetUsd } });
  await recordAudit(ctx, {
    orgId,
    action: 'org.quota_update',
    targetType: 'organization',
    targetId: orgId,
    before: { monthly_budget_usd: before.quota?.monthly_budget_usd ?? null },
    after: { monthly_budget_usd: monthlyBudgetUsd },
  });
  return { monthly_budget_usd: monthlyBudgetUsd };
}

/** Whether the org's monthly cap is met (spend ≥ cap); false without a cap. */
export async function budgetExhausted(ctx: EngineContext, orgId: string): Promise<boolean> {
  const org = await ctx.stores.orgs.get(orgId);
  const budget = org?.quota?.monthly_budget_usd ?? null;
  if (budget === null) return false;
  return (await monthSpend(ctx, orgId)).total >= budget;
}

/**
 * Checked before any analysis work (analyze, retry): PaymentRequiredError (402) when the
 * monthly cap is already met, or a free org of a cloud deployment used its demo analyses.
 */
export async function assertBudget(ctx: EngineContext, orgId: string, settings: UsageSettings = DEFAULT_USAGE_SETTINGS): Promise<void> {
  if (await budgetExhausted(ctx, orgId)) throw new PaymentRequiredError('The monthly LLM spend cap of this organization is reached');
  const org = await ctx.stores.orgs.get(orgId);
  if (org) {
    const used = await demoUsed(ctx, org, settings);
    if (used !== null && used >= settings.demo_analyses) throw new PaymentRequiredError('The demo analyses of this free plan are used up');
  }
}
