import type { Collection, Filter, IndexSpec, Store } from '../store/port';

/** identity-api.md "Audit event". */
export interface AuditEventDoc {
  _id?: string;
  event_id: string;
  /** null for org-less actions (superadmin grant, account-wide admin actions). */
  org_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  actor_user_id: string | null;
  actor_key_id: string | null;
  actor_email: string | null;
  actor_is_superadmin: boolean;
  ip: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
  timestamp: string;
}

export interface AuditQuery {
  action?: string;
  /** Matches the user or the key actor. */
  actorId?: string;
  targetType?: string;
  since?: string;
  until?: string;
  limit: number;
  offset: number;
}

export const AUDIT_INDEXES: Record<string, IndexSpec[]> = {
  audit_events: [
    { name: 'org_time', keys: { org_id: 1, timestamp: -1 } },
    { name: 'event_id', keys: { event_id: 1 }, unique: true },
  ],
};

/** Typed store for audit events; reads take the org first. */
export class AuditStore {
  private readonly events: Collection<AuditEventDoc>;
  constructor(store: Store) {
    this.events = store.collection<AuditEventDoc>('audit_events');
  }

  async insert(doc: AuditEventDoc): Promise<void> {
    await this.events.insertOne(doc);
  }

  /** The org's events newest first, filtered (identity-api.md "Metrics and audit"). */
  list(orgId: string, query: AuditQuery): Promise<AuditEventDoc[]> {
    return this.query({ org_id: orgId }, query);
  }

  /**
   * Unsafe (cross-tenant): the platform feed for GET /admin/audit, org-less actions included;
   * `orgId` narrows it to one org.
   */
  unsafeListAll(query: AuditQuery & { orgId?: string }): Promise<AuditEventDoc[]> {
    return this.query(query.orgId ? { org_id: query.orgId } : {}, query);
  }

  private async query(base: Filter, query: AuditQuery): Promise<AuditEventDoc[]> {
    const filter: Filter = { ...base };
    if (query.action) filter.action = query.action;
    if (query.targetType) filter.target_type = query.targetType;
    const range: Record<string, string> = {};
    if (query.since) range.$gte = query.since;
    if (query.until) range.$lte = query.until;
    if (Object.keys(range).length > 0) filter.timestamp = range;
    // actor_id matches either actor column: read both and merge (the port has no $or).
    if (query.actorId) {
      const [byUser, byKey] = await Promise.all([
        this.events.find({ ...filter, actor_user_id: query.actorId }),
        this.events.find({ ...filter, actor_key_id: query.actorId }),
      ]);
      const merged = [...byUser, ...byKey].sort((a, b) =>
        a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : b.event_id.localeCompare(a.event_id),
      );
      return merged.slice(query.offset, query.offset + query.limit);
    }
    return this.events.find(filter, { sort: { timestamp: -1, event_id: -1 }, skip: query.offset, limit: query.limit });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly audit: AuditStore;
  }
}
