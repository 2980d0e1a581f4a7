import { SEVERITY_ORDER, type Severity } from '../core/payload';
import type { EngineContext } from '../context/engine-context';

/** The gate over a set of analysed resources: what blocks, and the counts a message shows. */
export interface GateOutcome {
  /** An open finding at or above the gate severity exists. */
  readonly blocking: boolean;
  /** Open findings per severity (every severity present, 0 when none). */
  readonly open: Readonly<Record<Severity, number>>;
  /** Open findings at or above the gate severity. */
  readonly openAtOrAbove: number;
  readonly needsReview: number;
}

/**
 * How a rule's findings weigh on the gate when it is not the plain severity rule: `off` never
 * counts, `review` counts as awaiting review while unresolved, `fail` blocks while unresolved
 * (the injection scanner's `analysis.injection_scan_gate`).
 */
export type RuleGateMode = 'off' | 'review' | 'fail';

export interface GateOptions {
  /** Per rule id, a mode replacing the severity rule for that rule's findings. */
  readonly ruleModes?: ReadonlyMap<string, RuleGateMode>;
}

/**
 * Evaluates the gate over the triage records of `hashes` (analysis-api.md "Commit status posted
 * to a pull request": an open finding at or above the gate blocks — the spec's gate is HIGH —
 * needs_review findings are counted apart; suppressed, acknowledged and false_positive never
 * block). `gate` is the least severe level that blocks. A rule named in `options.ruleModes`
 * follows its mode instead while its finding is open or needs_review.
 */
export async function evaluateGate(
  ctx: EngineContext,
  orgId: string,
  hashes: readonly string[],
  gate: Severity,
  options: GateOptions = {},
): Promise<GateOutcome> {
  const records = hashes.length === 0 ? [] : await ctx.stores.findings.forResources(orgId, hashes);
  const open = Object.fromEntries(SEVERITY_ORDER.map((s) => [s, 0])) as Record<Severity, number>;
  let needsReview = 0;
  let forcedBlocking = 0;
  for (const record of records) {
    const unresolved = record.status === 'open' || record.status === 'needs_review';
    const mode = options.ruleModes?.get(record.rule_id);
    if (mode !== undefined) {
      if (!unresolved || mode === 'off') continue;
      if (mode === 'fail') forcedBlocking += 1;
      else needsReview += 1;
      continue;
    }
    if (record.status === 'open') open[record.severity] += 1;
    else if (record.status === 'needs_review') needsReview += 1;
  }
  const blockingLevels = SEVERITY_ORDER.slice(0, SEVERITY_ORDER.indexOf(gate) + 1);
  const openAtOrAbove = blockingLevels.reduce((sum, s) => sum + open[s], 0) + forcedBlocking;
  return { blocking: openAtOrAbove > 0, open, openAtOrAbove, needsReview };
}

/** A commit status state (GitHub "Commit statuses"). */
export type CommitState = 'failure' | 'pending' | 'success';

/**
 * analysis-api.md "Commit status posted to a pull request (context `service-core`)": failure
 * when the gate blocks, else pending when a finding awaits review, else success.
 */
export function commitState(outcome: GateOutcome): CommitState {
  if (outcome.blocking) return 'failure';
  return outcome.needsReview > 0 ? 'pending' : 'success';
}

/** One line for a check's summary: `Open findings: CRITICAL 0, HIGH 2, ...; awaiting review: 1.` */
export function gateCounts(outcome: GateOutcome): string {
  return `Open findings: ${SEVERITY_ORDER.map((s) => `${s} ${outcome.open[s]}`).join(', ')}; awaiting review: ${outcome.needsReview}.`;
}
