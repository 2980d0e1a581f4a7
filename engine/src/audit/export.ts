import type { AuditEventDoc } from './audit-store';
import { presentAuditEvent } from './record';

const COLUMNS = [
  'event_id',
  'org_id',
  'action',
  'target_type',
  'target_id',
  'actor_user_id',
  'actor_key_id',
  'actor_email',
  'actor_is_superadmin',
  'ip',
  'before',
  'after',
  'request_id',
  'timestamp',
] as const;

function cell(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  // RFC 4180 quoting; a leading formula character is neutralised for spreadsheet safety.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Audit events as CSV (identity-api.md "Metrics and audit": before/after JSON-encoded in cells). */
export function auditCsv(events: readonly AuditEventDoc[]): string {
  const lines = [COLUMNS.join(',')];
  for (const e of events) {
    const row = presentAuditEvent(e) as Record<string, unknown>;
    lines.push(COLUMNS.map((c) => cell(row[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
