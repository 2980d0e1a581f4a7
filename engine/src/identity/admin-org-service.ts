import { NotFoundError } from '../core/errors';
import type { OrgDoc } from '../orgs/org-store';
import type { IdentityCtx } from '../context/identity-context';
import { presentWithDomains } from './sso-service';
import { monthWindow } from '../usage/usage-service';

/** identity-api.md "Organization summary (admin views)": sso_enabled only for a configured and enabled connection. */
async function summary(ctx: IdentityCtx, org: OrgDoc) {
  const now = ctx.engine.now();
  // The month's counter (docs/decisions.md "Aggregate counters"), not a pass over the org's calls.
  const [members, month, sso] = await Promise.all([
    ctx.engine.stores.memberships.list(org.org_id),
    ctx.engine.stores.llmCalls.monthTotals(org.org_id, monthWindow(now), now),
    ctx.engine.stores.sso.get(org.org_id),
  ]);
  const expiresAt = typeof org.contract?.expires_at === 'string' ? org.contract.expires_at : null;
  return {
    org_id: org.org_id,
    name: org.name,
    slug: org.slug,
    plan_tier: org.plan_tier,
    contract: org.plan_tier === 'enterprise' ? (org.contract ?? null) : null,
    contract_expired: org.plan_tier === 'enterprise' && expiresAt !== null && expiresAt < now.toISOString(),
    member_count: members.length,
    monthly_budget_usd: org.quota?.monthly_budget_usd ?? null,
    current_month_cost_usd: Math.round(month.cost_usd * 1e6) / 1e6,
    created_at: org.created_at,
    locked: org.locked,
    require_2fa: org.require_2fa,
    sso_enabled: sso?.enabled ?? false,
    pending_deletion_at: org.pending_deletion_at ?? null,
  };
}

/** GET /admin/organizations: every org's summary (superadmin only; cross-tenant by design). */
export async function listOrgSummaries(ctx: IdentityCtx) {
  const orgs = await ctx.engine.stores.orgs.unsafeList();
  return Promise.all(orgs.map((o) => summary(ctx, o)));
}

/** GET /admin/organizations/{org_id}: the summary plus `sso` (the connection without its secret, or null); 404 unknown. */
export async function orgSummary(ctx: IdentityCtx, orgId: string) {
  const org = await ctx.engine.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  const sso = await ctx.engine.stores.sso.get(orgId);
  return { ...(await summary(ctx, org)), sso: sso ? await presentWithDomains(ctx, sso) : null };
}

/** The org for an admin mirror call; NotFoundError when unknown. */
export async function requireOrg(ctx: IdentityCtx, orgId: string): Promise<OrgDoc> {
  const org = await ctx.engine.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  return org;
}
