import { ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import type { OrgDoc } from '../orgs/org-store';
import { seedBuiltinTemplates } from '../report/template-service';
import { seedBuiltinRules } from '../custom-rules/custom-seed';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { randomId } from './secrets';
import type { MembershipDoc, OrgRole } from './types';

function slugify(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return base || 'org';
}

function tooManyOrgs(limit: number): ForbiddenError {
  return new ForbiddenError(`An account may create at most ${limit} organization${limit === 1 ? '' : 's'}`);
}

/**
 * Creates an org with `ownerUserId` as its owner (and creator) and makes it the owner's last
 * scoped org (identity-api.md "Organizations": POST /orgs; registration with org_name), seeding
 * the built-in report templates and rules. Returns `{org, membership}`.
 * `maxCreated` (config `registration.max_orgs_per_account`; null for superadmins): ForbiddenError
 * (403, the spec's status for a refused POST /orgs) when the owner already created that many
 * orgs that still exist. Parallel creations cannot overshoot: the count is taken again after
 * the insert, and a creation that finds itself over the limit removes its bare record.
 */
export async function createOrganization(
  ctx: IdentityCtx,
  input: { name: string; ownerUserId: string; maxCreated?: number | null },
): Promise<{ org: OrgDoc; membership: MembershipDoc }> {
  const orgs = ctx.engine.stores.orgs;
  const limit = input.maxCreated ?? null;
  if (limit !== null && (await orgs.countCreatedBy(input.ownerUserId)) >= limit) throw tooManyOrgs(limit);
  const now = isoNow(ctx);
  const orgId = randomId('org');
  const slug = `${slugify(input.name)}-${orgId.slice(4, 10)}`;
  const org = await orgs.ensure({ org_id: orgId, name: input.name, slug, created_by: input.ownerUserId }, now);
  if (limit !== null && (await orgs.countCreatedBy(input.ownerUserId)) > limit) {
    await orgs.deleteBare(orgId);
    throw tooManyOrgs(limit);
  }
  const membership = await ctx.engine.stores.memberships.insert({
    org_id: orgId,
    user_id: input.ownerUserId,
    role: 'owner',
    is_active: true,
    created_at: now,
    updated_at: now,
  });
  await ctx.engine.stores.users.update(input.ownerUserId, { last_org_id: orgId, updated_at: now });
  await seedBuiltinRules(ctx.engine, orgId, input.ownerUserId);
  await seedBuiltinTemplates(ctx, orgId);
  return { org, membership };
}

/** The org's record; NotFoundError when missing (identity-api.md "Organization (info)"). */
export async function getOrganization(ctx: IdentityCtx, orgId: string): Promise<OrgDoc> {
  const org = await ctx.engine.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  return org;
}

/** Presenter: identity-api.md "Organization (info)". */
export function presentOrgInfo(org: OrgDoc) {
  return {
    org_id: org.org_id,
    name: org.name,
    plan_tier: org.plan_tier,
    quota: { monthly_budget_usd: org.quota?.monthly_budget_usd ?? null },
    report_link_ttl_hours: org.report_link_ttl_hours,
    invite_link_ttl_hours: org.invite_link_ttl_hours,
    created_at: org.created_at,
  };
}

/**
 * Adds `userId` to `orgId` at `role`, or returns the existing membership unchanged (invite
 * acceptance by an existing member: "already a member: role unchanged"). Reactivation is not
 * implied. ConflictError is never thrown here; use addMember for the 409 path.
 */
export async function joinOrganization(ctx: IdentityCtx, orgId: string, userId: string, role: OrgRole): Promise<MembershipDoc> {
  const existing = await ctx.engine.stores.memberships.get(orgId, userId);
  if (existing) return existing;
  const now = isoNow(ctx);
  try {
    return await ctx.engine.stores.memberships.insert({ org_id: orgId, user_id: userId, role, is_active: true, created_at: now, updated_at: now });
  } catch (error) {
    if (error instanceof ConflictError) return (await ctx.engine.stores.memberships.get(orgId, userId)) as MembershipDoc;
    throw error;
  }
}
