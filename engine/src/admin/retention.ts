import type { EngineContext } from '../context/engine-context';
import { yieldWhenDue } from '../ingest/timed-batches';
import type { Collection, Doc, Filter } from '../store/port';
import type { SweepStep } from './sweep-store';

/** identity-api.md "Platform settings" retention (days; defaults 30/730/180/730/90/730). */
export interface RetentionSettings {
  readonly telemetry_days: number;
  readonly audit_days: number;
  readonly finding_low_medium_days: number;
  readonly finding_high_critical_days: number;
  readonly resource_content_days: number;
  readonly feedback_days: number;
}

const DAY_MS = 86_400_000;
const cutoff = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();

/** The TTL indexes carrying telemetry_days and audit_days (on the spans' and audit events' `timestamp`). */
function ttlIndexes(s: Pick<RetentionSettings, 'telemetry_days' | 'audit_days'>) {
  return [
    { collection: 'spans', spec: { name: 'retention_ttl', keys: { timestamp: 1 }, expireAfterSeconds: s.telemetry_days * 86_400 } },
    { collection: 'audit_events', spec: { name: 'retention_ttl', keys: { timestamp: 1 }, expireAfterSeconds: s.audit_days * 86_400 } },
  ] as const;
}

/**
 * Pushes retention.telemetry_days and audit_days onto the running TTL indexes (identity-api.md
 * "Platform settings" Timing). Idempotent: an unchanged spec is left alone by every adapter;
 * a changed one is recreated (SQLite, memory) or re-declared (MongoDB drops and recreates).
 */
export async function applyRetentionTtl(ctx: EngineContext, s: Pick<RetentionSettings, 'telemetry_days' | 'audit_days'>): Promise<void> {
  for (const { collection, spec } of ttlIndexes(s)) await ctx.stores.store.ensureIndexes(collection, [{ ...spec, keys: { ...spec.keys } }]);
}

/** Documents one retention batch reads and deletes or updates at a time (its one write holds the event loop while it runs). */
const RETENTION_BATCH = 200;

/**
 * Applies `write` to every document of `collection` that matches `filter` in each org, in
 * batches of RETENTION_BATCH read through the org-leading indexes (`filter` must be one of them:
 * findings org_severity_last_seen, resources org_redacted_created, feedback org_created), with a turn of
 * the event loop between batches when one is due: a platform's rows are never one scan or one
 * write. `write` receives a filter of a batch's `_id`s (with the org) and returns how many it changed.
 * Returns the total. Rows of an org that no longer exists were removed with it (offboarding.ts).
 */
async function eachOrgInBatches(ctx: EngineContext, collection: Collection<Doc>, filter: Filter, write: (batch: Filter) => Promise<number>): Promise<number> {
  let total = 0;
  for (const org of await ctx.stores.orgs.unsafeList()) {
    for (;;) {
      const docs = await collection.find({ ...filter, org_id: org.org_id }, { limit: RETENTION_BATCH });
      if (docs.length > 0) total += await write({ org_id: org.org_id, _id: { $in: docs.map((d) => d._id as string) } });
      await yieldWhenDue();
      if (docs.length < RETENTION_BATCH) break;
    }
  }
  return total;
}

/**
 * The retention sweep's steps, in order (POST /admin/retention/run):
 * - findings_purged: triage records not seen for finding_low_medium_days (INFO, LOW, MEDIUM)
 *   or finding_high_critical_days (HIGH, CRITICAL);
 * - resources_redacted: resource bodies older than resource_content_days are blanked (the
 *   hash, address, analysis and findings stay), once;
 * - feedback_purged: review feedback older than feedback_days;
 * - ttl_expired: telemetry and audit expiry through the TTL indexes (pushed first), and every
 *   other TTL collection (auth throttle counters, revoked tokens, report links): what the
 *   adapter's purge removed (MongoDB's TTL monitor may have removed them already).
 * Platform-wide across orgs, org by org in batches (eachOrgInBatches); `settings` is read when the sweep runs.
 */
export function retentionSteps(ctx: EngineContext, settings: () => RetentionSettings): Record<string, SweepStep> {
  const col = (name: string) => ctx.stores.store.collection(name);
  const purge = (name: string, filter: Filter) => eachOrgInBatches(ctx, col(name), filter, (batch) => col(name).deleteMany(batch));
  return {
    findings_purged: async (now) => {
      const s = settings();
      const low = await purge('findings', { severity: { $in: ['INFO', 'LOW', 'MEDIUM'] }, last_seen: { $lt: cutoff(now, s.finding_low_medium_days) } });
      const high = await purge('findings', { severity: { $in: ['HIGH', 'CRITICAL'] }, last_seen: { $lt: cutoff(now, s.finding_high_critical_days) } });
      // The delete bypasses the findings store, so the summary counters rebuild at their next read.
      if (low + high > 0) await ctx.stores.findings.invalidateCounts();
      return low + high;
    },
    resources_redacted: async (now) => {
      const iso = now.toISOString();
      const resources = col('resources');
      return eachOrgInBatches(
        ctx,
        resources,
        { created_at: { $lt: cutoff(now, settings().resource_content_days) }, content_redacted_at: { $exists: false } },
        async (batch) => (await resources.updateMany(batch, { $set: { 'value.body': '', content_redacted_at: iso } })).matched,
      );
    },
    feedback_purged: async (now) => {
      const purged = await purge('feedback', { created_at: { $lt: cutoff(now, settings().feedback_days) } });
      // The delete bypasses the feedback store, so the rule-health counters rebuild at their next read.
      if (purged > 0) await ctx.stores.feedback.invalidateCounts();
      return purged;
    },
    ttl_expired: async (now) => {
      await applyRetentionTtl(ctx, settings());
      return ctx.stores.store.purgeExpired(now);
    },
  };
}
