import { ConflictError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import { schemaCollections } from '../stores';
import { DEFAULT_ORG_ID, type OrgDoc } from '../orgs/org-store';

const DAY_MS = 86_400_000;

async function requireOrg(ctx: IdentityCtx, orgId: string): Promise<OrgDoc> {
  const org = await ctx.engine.stores.orgs.get(orgId);
  if (!org) throw new NotFoundError('Organization not found');
  return org;
}

const purgeAfter = (pendingAt: string, graceDays: number) => new Date(Date.parse(pendingAt) + graceDays * DAY_MS).toISOString();

/**
 * DELETE /admin/organizations/{org_id} (identity-api.md "States and transitions", Org
 * deletion): marks the org pending (`pending_deletion_at` = now) and locks it; nothing is
 * removed. `{org_id, pending_deletion_at, purge_after}` (purge_after from the current grace
 * period in days). 404 unknown; 409 already pending. Audited org.deletion_request.
 */
export async function requestOrgDeletion(ctx: IdentityCtx, orgId: string, graceDays: number) {
  const org = await requireOrg(ctx, orgId);
  if (org.pending_deletion_at) throw new ConflictError('Organization deletion is already pending');
  const at = ctx.engine.now().toISOString();
  await ctx.engine.stores.orgs.update(orgId, { pending_deletion_at: at, locked: true });
  await recordAudit(ctx, {
    orgId,
    action: 'org.deletion_request',
    targetType: 'organization',
    targetId: orgId,
    before: { pending_deletion_at: null, locked: org.locked },
    after: { pending_deletion_at: at, locked: true },
  });
  return { org_id: orgId, pending_deletion_at: at, purge_after: purgeAfter(at, graceDays) };
}

/**
 * POST /admin/organizations/{org_id}/cancel-deletion: clears `pending_deletion_at`; the lock
 * stays. `{org_id, pending_deletion_at: null}`; 404; 409 not pending. Audited org.deletion_cancel.
 */
export async function cancelOrgDeletion(ctx: IdentityCtx, orgId: string) {
  const org = await requireOrg(ctx, orgId);
  if (!org.pending_deletion_at) throw new ConflictError('Organization deletion is not pending');
  await ctx.engine.stores.orgs.update(orgId, { pending_deletion_at: null });
  await recordAudit(ctx, {
    orgId,
    action: 'org.deletion_cancel',
    targetType: 'organization',
    targetId: orgId,
    before: { pending_deletion_at: org.pending_deletion_at },
    after: { pending_deletion_at: null },
  });
  return { org_id: orgId, pending_deletion_at: null };
}

/**
 * POST /admin/organizations/purge-pending: hard-deletes every org whose `pending_deletion_at`
 * is older than `graceDays`, cascading through every collection of the schema (rows whose
 * `org_id` is the org's; accounts stay, their memberships go), spans included the ones still
 * in this process's write buffer (SpanStore.purgeOrg). The default org is never purged.
 * Irreversible. Each purge is audited org.purge (org-less, so it outlives the org).
 * `{purged:[{org_id, name, rows_deleted}], grace_period_days}`.
 */
export async function purgePendingOrgs(ctx: IdentityCtx, graceDays: number) {
  const cutoff = new Date(ctx.engine.now().getTime() - graceDays * DAY_MS).toISOString();
  const due = (await ctx.engine.stores.orgs.unsafePendingDeletionBefore(cutoff)).filter((o) => o.org_id !== DEFAULT_ORG_ID);
  const purged: { org_id: string; name: string; rows_deleted: number }[] = [];
  for (const org of due) {
    let rows = 0;
    // The org record last, so a purge interrupted midway is picked up again by the next call.
    for (const name of schemaCollections().filter((c) => c !== 'orgs' && c !== 'spans')) {
      rows += await ctx.engine.stores.store.collection(name).deleteMany({ org_id: org.org_id });
    }
    rows += await ctx.engine.stores.spans.purgeOrg(org.org_id);
    rows += await ctx.engine.stores.store.collection('orgs').deleteMany({ org_id: org.org_id });
    await recordAudit(ctx, {
      orgId: null,
      action: 'org.purge',
      targetType: 'organization',
      targetId: org.org_id,
      before: { name: org.name, pending_deletion_at: org.pending_deletion_at },
      after: null,
    });
    purged.push({ org_id: org.org_id, name: org.name, rows_deleted: rows });
  }
  return { purged, grace_period_days: graceDays };
}
