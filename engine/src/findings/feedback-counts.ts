/**
 * The counts behind GET /rule-health and the calibration block (rule-health.ts), kept in one
 * counter document per org (store/counters.ts; docs/decisions.md "Aggregate counters"):
 * - `a.<rule>.<verdict>`: feedback entries of the rule with that verdict; `t.<rule>.<verdict>`:
 *   the trusted ones among them;
 * - `la.<rule>`, `lt.<rule>`: the newest entry's `created_at` (epoch ms), of all and of trusted
 *   entries (running maxima).
 * `<rule>` is the rule id in hex behind an `r` (a field-path segment allows letters and digits
 * only). The feedback log is append-only, so an entry's contribution never changes.
 */
import type { Counts, CounterDelta } from '../store/counters';

/** The fields of a feedback entry (feedback-store.ts FeedbackDoc) the counts depend on. */
export interface FeedbackContributor {
  readonly rule_id: string;
  readonly verdict: string;
  readonly trusted: boolean;
  readonly created_at: string;
}

/** The verdict counts of one rule: `total` counts every entry, `missed` included. */
export interface VerdictTally {
  confirmed: number;
  rejected: number;
  severity_wrong: number;
  unclear: number;
  total: number;
  /** The newest counted entry's `created_at` (ISO), or null. */
  last: string | null;
}

const num = (v: Counts[string] | undefined) => (typeof v === 'number' ? v : 0);
const ruleKey = (ruleId: string) => `r${Buffer.from(ruleId, 'utf8').toString('hex')}`;
const ruleIdOf = (key: string) => Buffer.from(key.slice(1), 'hex').toString('utf8');

/** What appending `doc` adds to the org's counter `id`: verdict counts and the newest-entry times. */
export function feedbackDelta(id: string, doc: FeedbackContributor): CounterDelta {
  const rule = ruleKey(doc.rule_id);
  const at = Date.parse(doc.created_at);
  const deltas: Record<string, number> = { [`a.${rule}.${doc.verdict}`]: 1 };
  const latest: Record<string, number> = { [`la.${rule}`]: at };
  if (doc.trusted) {
    deltas[`t.${rule}.${doc.verdict}`] = 1;
    latest[`lt.${rule}`] = at;
  }
  return { id, deltas, latest };
}

/** Adds `doc`'s contribution into `counts` (a recount from the rows). */
export function addFeedback(counts: Counts, doc: FeedbackContributor): void {
  const { deltas, latest } = feedbackDelta('', doc);
  for (const [path, n] of Object.entries(deltas)) {
    const [group, rule, verdict] = path.split('.');
    const byRule = (((counts[group] ??= {}) as Counts)[rule] ??= {});
    (byRule as Counts)[verdict] = num((byRule as Counts)[verdict]) + n;
  }
  for (const [path, at] of Object.entries(latest ?? {})) {
    const [group, rule] = path.split('.');
    const node = (counts[group] ??= {}) as Counts;
    node[rule] = Math.max(typeof node[rule] === 'number' ? node[rule] : at, at);
  }
}

/** The verdict tallies by rule id, of every entry (`trusted` false) or of trusted entries only. */
export function verdictTallies(counts: Counts, trusted: boolean): Map<string, VerdictTally> {
  const byRule = (counts[trusted ? 't' : 'a'] as Counts | undefined) ?? {};
  const latest = (counts[trusted ? 'lt' : 'la'] as Counts | undefined) ?? {};
  const out = new Map<string, VerdictTally>();
  for (const [rule, verdicts] of Object.entries(byRule)) {
    const v = verdicts as Counts;
    // Every key under a rule is a verdict: the total counts them all, `missed` included.
    const total = Object.values(v).reduce((sum: number, n) => sum + num(n), 0);
    if (total === 0) continue;
    const at = latest[rule];
    out.set(ruleIdOf(rule), {
      confirmed: num(v.confirmed),
      rejected: num(v.rejected),
      severity_wrong: num(v.severity_wrong),
      unclear: num(v.unclear),
      total,
      last: typeof at === 'number' ? new Date(at).toISOString() : null,
    });
  }
  return out;
}
