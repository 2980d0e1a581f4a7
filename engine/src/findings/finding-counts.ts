/**
 * The counts behind GET /findings/summary (analysis-api.md "Findings and review feedback"), kept
 * in one counter document per org (store/counters.ts; docs/decisions.md "Aggregate counters"):
 * - `s.<status>.<severity>`: records in that status and severity (total, by_status,
 *   by_severity_open);
 * - `n.d<YYYYMMDD>`: records first seen on that UTC day (new_in_period);
 * - `r.d<YYYYMMDD>`: records now in a resolved status whose last triage was on that UTC day
 *   (resolved_in_period).
 * A record's contribution is a function of its fields (contribution), so any write's deltas are
 * after minus before. Day buckets older than the longest summary window are dropped on read.
 *
 * A summary window starts inside a day; its part of that day is read from that day's hour counter
 * (`_id` = `<org>:n:<dYYYYMMDD>`, `n.h<HH>`: records first seen in that UTC hour), so only the
 * records of the window's first hour are counted from the rows. `first_seen` never changes, so an
 * hour counter only grows with inserts.
 */
import { SEVERITY_ORDER } from '../core/payload';
import type { Counts } from '../store/counters';

/** analysis-api.md "Finding status": a resolved finding is in one of these. */
export const RESOLVED_STATUSES = ['acknowledged', 'suppressed', 'false_positive'] as const;
const RESOLVED = new Set<string>(RESOLVED_STATUSES);

/** The longest summary window (SummaryQuerySchema `days` max) plus the day it starts in. */
export const MAX_SUMMARY_DAYS = 365;
const DAY_MS = 86_400_000;

/** `d<YYYYMMDD>` of an ISO timestamp's UTC day (a field-path segment: letters and digits). */
export function dayKey(iso: string): string {
  return `d${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
}

/** The fields of a triage record (finding-store.ts FindingDoc) that the counts depend on. */
export interface Contributor {
  readonly status: string;
  readonly severity: string;
  readonly first_seen: string;
  readonly updated_at: string | null;
}

/** The counts one record adds (dotted paths under the counter's `c`). */
export function contribution(doc: Contributor): Record<string, number> {
  const out: Record<string, number> = { [`s.${doc.status}.${doc.severity}`]: 1, [`n.${dayKey(doc.first_seen)}`]: 1 };
  if (RESOLVED.has(doc.status) && doc.updated_at !== null) out[`r.${dayKey(doc.updated_at)}`] = 1;
  return out;
}

/** What a write changing `before` into `after` (null: absent) adds to the counts. */
export function changeDeltas(before: Contributor | null, after: Contributor | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [path, n] of Object.entries(after ? contribution(after) : {})) out[path] = (out[path] ?? 0) + n;
  for (const [path, n] of Object.entries(before ? contribution(before) : {})) out[path] = (out[path] ?? 0) - n;
  return out;
}

/** Adds `doc`'s contribution into `counts` (a recount), skipping day buckets before `oldestDay`. */
export function addContribution(counts: Counts, doc: Contributor, oldestDay: string): void {
  for (const [path, n] of Object.entries(contribution(doc))) {
    const segs = path.split('.');
    if (segs[0] !== 's' && segs[1] < oldestDay) continue;
    let node = counts;
    for (const seg of segs.slice(0, -1)) node = (node[seg] ??= {}) as Counts;
    const last = segs[segs.length - 1];
    node[last] = ((node[last] as number | undefined) ?? 0) + n;
  }
}

/** The oldest day bucket a summary at `now` can read (windows start at most MAX_SUMMARY_DAYS back). */
export function oldestDayKey(now: Date): string {
  return dayKey(new Date(now.getTime() - (MAX_SUMMARY_DAYS + 1) * DAY_MS).toISOString());
}

/** Day-bucket paths (`n.d…`, `r.d…`) of `counts` older than `oldestDay`: nothing reads them any more. */
export function expiredDayPaths(counts: Counts, oldestDay: string): string[] {
  const out: string[] = [];
  for (const group of ['n', 'r'] as const) {
    for (const day of Object.keys((counts[group] as Counts | undefined) ?? {})) if (day < oldestDay) out.push(`${group}.${day}`);
  }
  return out;
}

const num = (v: Counts[string] | undefined) => (typeof v === 'number' ? v : 0);

/** Sum of the day buckets of `group` after `afterDay` (exclusive). */
export function daysAfter(counts: Counts, group: 'n' | 'r', afterDay: string): number {
  let sum = 0;
  for (const [day, n] of Object.entries((counts[group] as Counts | undefined) ?? {})) if (day > afterDay) sum += num(n);
  return sum;
}

/** Records per status (every status present) and open records per severity, from the counts. */
export function stateCounts<S extends string>(counts: Counts, statuses: readonly S[]) {
  const s = (counts.s as Counts | undefined) ?? {};
  const cell = (status: string, severity: string) => num((s[status] as Counts | undefined)?.[severity]);
  const byStatus = Object.fromEntries(statuses.map((st) => [st, SEVERITY_ORDER.reduce((sum, sev) => sum + cell(st, sev), 0)]));
  return {
    total: Object.values(byStatus).reduce((a, b) => a + b, 0),
    by_status: byStatus,
    by_severity_open: Object.fromEntries(SEVERITY_ORDER.map((sev) => [sev, cell('open', sev)])),
  };
}

/** Start of the UTC day after the one holding `iso`. */
export function nextUtcDay(iso: string): string {
  const d = new Date(iso);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

/** The hour counter of the UTC day holding `iso` (see the module comment). */
export function hourCounterId(orgId: string, iso: string): string {
  return `${orgId}:n:${dayKey(iso)}`;
}

/** `h<HH>` of an ISO timestamp's UTC hour. */
export function hourKey(iso: string): string {
  return `h${iso.slice(11, 13)}`;
}

/** Start of the UTC hour after the one holding `iso`. */
export function nextUtcHour(iso: string): string {
  const t = Date.parse(iso);
  return new Date(t - (t % 3_600_000) + 3_600_000).toISOString();
}

/** Sum of the hour buckets (`n.h<HH>`) after the hour holding `iso` (exclusive). */
export function hoursAfter(counts: Counts, iso: string): number {
  const after = hourKey(iso);
  let sum = 0;
  for (const [hour, n] of Object.entries((counts.n as Counts | undefined) ?? {})) if (hour > after) sum += num(n);
  return sum;
}
