import { randomUUID } from 'node:crypto';
import type { IdentityCtx } from '../context/identity-context';
import type { AuditEventDoc } from './audit-store';

export interface AuditInput {
  readonly orgId: string | null;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string | null;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

/**
 * Records one audit event with before/after values and the acting principal
 * (identity-api.md "Audit events"). Callers pass presented (secret-free) values only.
 */
export async function recordAudit(ctx: IdentityCtx, input: AuditInput): Promise<AuditEventDoc> {
  const event: AuditEventDoc = {
    event_id: randomUUID(),
    org_id: input.orgId,
    action: input.action,
    target_type: input.targetType,
    target_id: input.targetId,
    actor_user_id: ctx.actor.userId,
    actor_key_id: ctx.actor.keyId,
    actor_email: ctx.actor.email,
    actor_is_superadmin: ctx.actor.isSuperadmin,
    ip: ctx.actor.ip,
    before: input.before,
    after: input.after,
    request_id: ctx.actor.requestId,
    timestamp: ctx.engine.now().toISOString(),
  };
  await ctx.engine.stores.audit.insert({ ...event });
  return event;
}

/** An audit event without its storage `_id` (the presenter of GET /metrics/audit). */
export function presentAuditEvent(e: AuditEventDoc) {
  return {
    event_id: e.event_id,
    org_id: e.org_id,
    action: e.action,
    target_type: e.target_type,
    target_id: e.target_id,
    actor_user_id: e.actor_user_id,
    actor_key_id: e.actor_key_id,
    actor_email: e.actor_email,
    actor_is_superadmin: e.actor_is_superadmin,
    ip: e.ip,
    before: e.before,
    after: e.after,
    request_id: e.request_id,
    timestamp: e.timestamp,
  };
}
