import { z } from 'zod';
import { NotFoundError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import type { OrgDoc } from './org-store';

/** identity-api.md "Organization summary" contract fields (all optional). */
export const ContractSchema = z
  .object({
    included_resources_per_month: z.number().int().min(0).optional(),
    committed_amount_usd: z.number().finite().min(0).optional(),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    reference: z.string().min(1).max(200).optional(),
  })
  .strict();

/** PATCH /admin/organizations/{org_id}/plan body. */
export const PlanPatchSchema = z
  .object({
    plan_tier: z.enum(['free', 'paid', 'enterprise']),
    contract: ContractSchema.nullable().optional(),
    demo_analyses_used: z.number().int().min(0).optional(),
  })
  .strict();
export type PlanPatch = z.infer<typeof PlanPatchSchema>;

/**
 * Sets an org's plan tier (identity-api.md "Platform administration" PATCH .../plan; "The plan
 * tier moves by PATCH to any of free, paid, enterprise; contract is accepted only with
 * enterprise"). Moving off enterprise clears the contract; enterprise without `contract` keeps
 * the stored one (none = unlimited). `demo_analyses_used` sets the demo count from now on
 * (0 resets the allowance) by storing an offset against the org's analyses so far
 * (`demoBase`: that count). Audited org.plan_update. 404 unknown org; 422 contract off enterprise.
 */
export async function setPlan(ctx: IdentityCtx, orgId: string, patch: PlanPatch, demoBase: (org: OrgDoc) => Promise<number>) {
  const org = await ctx.engine.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  if (patch.contract && patch.plan_tier !== 'enterprise') throw new ValidationError('contract: accepted only with plan_tier enterprise');
  const contract = patch.plan_tier !== 'enterprise' ? null : patch.contract !== undefined ? patch.contract : org.contract;
  const changes: Partial<OrgDoc> = { plan_tier: patch.plan_tier, contract };
  if (patch.demo_analyses_used !== undefined) changes.demo_analyses_offset = (await demoBase(org)) - patch.demo_analyses_used;
  await ctx.engine.stores.orgs.update(orgId, changes);
  await recordAudit(ctx, {
    orgId,
    action: 'org.plan_update',
    targetType: 'organization',
    targetId: orgId,
    before: { plan_tier: org.plan_tier, contract: org.contract },
    after: { plan_tier: patch.plan_tier, contract, ...(patch.demo_analyses_used !== undefined ? { demo_analyses_used: patch.demo_analyses_used } : {}) },
  });
  return { org_id: orgId, plan_tier: patch.plan_tier, contract };
}
