import type * as Sarif from 'sarif';
import { SEVERITY_ORDER, type Severity } from '@planwarden/engine/core/payload';
import { pathToUri } from '@planwarden/engine/report/sarif';

/**
 * What the `planwarden analyze` command concludes from the SARIF log of a namespace
 * (engine/src/report/sarif.ts): the findings that gate the pipeline, the `json` output, and
 * the input file as the location of results that have no file of their own (plan units).
 */

export const FAIL_ON_VALUES = ['critical', 'high', 'medium', 'low', 'none'] as const;
export type FailOn = (typeof FAIL_ON_VALUES)[number];

/** One finding as the command reads it back from a SARIF result. */
export interface OutcomeFinding {
  readonly rule_id: string;
  readonly severity: Severity;
  readonly status: string;
  readonly suppressed: boolean;
  readonly resource_address: string | null;
  readonly resource_hash: string | null;
  readonly path: string | null;
  readonly line: number | null;
  readonly message: string;
}

export interface Outcome {
  readonly findings: readonly OutcomeFinding[];
  /** Open findings per severity (the ones `--fail-on` looks at). */
  readonly open: Record<Severity, number>;
  /** Open findings at or above `failOn` (0 for `none`). */
  readonly blocking: number;
}

function asSeverity(value: unknown): Severity {
  return SEVERITY_ORDER.find((s) => s === value) ?? 'INFO';
}

/** The findings of a Planwarden SARIF log (one run), in result order. */
export function readFindings(log: Sarif.Log): OutcomeFinding[] {
  return (log.runs[0]?.results ?? []).map((r) => {
    const props = r.properties ?? {};
    const physical = r.locations?.[0]?.physicalLocation;
    return {
      rule_id: r.ruleId ?? '',
      severity: asSeverity(props.severity),
      status: typeof props.status === 'string' ? props.status : 'open',
      suppressed: (r.suppressions ?? []).length > 0,
      resource_address: typeof props.resource_address === 'string' ? props.resource_address : null,
      resource_hash: typeof props.resource_hash === 'string' ? props.resource_hash : null,
      path: physical?.artifactLocation?.uri ? decodeURIComponent(physical.artifactLocation.uri) : null,
      line: physical?.region?.startLine ?? null,
      message: r.message.text ?? '',
    };
  });
}

/**
 * Gates on open findings only (analysis-api.md "Finding status": triaged findings never block,
 * as for the commit status; needs_review does not block either). `blocking` counts open
 * findings whose severity is `failOn` or more severe; `none` never blocks.
 */
export function evaluate(log: Sarif.Log, failOn: FailOn): Outcome {
  const findings = readFindings(log);
  const open = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, INFO: 0 };
  for (const f of findings) if (f.status === 'open' && !f.suppressed) open[f.severity] += 1;
  const threshold = failOn === 'none' ? -1 : SEVERITY_ORDER.indexOf(failOn.toUpperCase() as Severity);
  const blocking = SEVERITY_ORDER.reduce((sum, s, i) => (i <= threshold ? sum + open[s] : sum), 0);
  return { findings, open, blocking };
}

/** One line for stderr: `2 open findings at or above HIGH (1 CRITICAL, 1 HIGH, 0 MEDIUM, 3 LOW, 0 INFO open)`. */
export function summaryLine(outcome: Outcome, failOn: FailOn): string {
  const counts = SEVERITY_ORDER.map((s) => `${outcome.open[s]} ${s}`).join(', ');
  if (failOn === 'none') return `open findings: ${counts} (--fail-on none)`;
  return `${outcome.blocking} open finding(s) at or above ${failOn.toUpperCase()} (open: ${counts})`;
}

/** The `--format json` document: the run's facts, the gate and every finding. */
export function jsonDocument(log: Sarif.Log, outcome: Outcome, facts: { namespace: string; job_id: string; fail_on: FailOn }) {
  return {
    namespace: facts.namespace,
    job_id: facts.job_id,
    quota_exceeded: log.runs[0]?.properties?.quota_exceeded === true,
    fail_on: facts.fail_on,
    failed: outcome.blocking > 0,
    open: outcome.open,
    findings: outcome.findings,
  };
}

/** 1-based line of the first line of `text` naming `address` as plan JSON or plan text does; null when none does. */
export function addressLine(text: string, address: string): number | null {
  const lines = text.split(/\r?\n/);
  const patterns = [`"address": "${address}"`, `"address":"${address}"`, `# ${address} `];
  for (const pattern of patterns) {
    const i = lines.findIndex((l) => l.includes(pattern));
    if (i !== -1) return i + 1;
  }
  return null;
}

/**
 * Gives every result without a file of its own (plan units, single blobs) the analysed input
 * as its physical location: `uri` (relative to the working directory, `/`-separated) and the
 * line naming the resource address (else line 1), since GitHub code scanning shows only
 * results with a file and line. Mutates and returns `log`.
 */
export function locateInInput(log: Sarif.Log, input: { uri: string; text: string }): Sarif.Log {
  for (const result of log.runs[0]?.results ?? []) {
    const location = result.locations?.[0];
    if (!location || location.physicalLocation) continue;
    const address = location.logicalLocations?.[0]?.fullyQualifiedName;
    const line = (address ? addressLine(input.text, address) : null) ?? 1;
    location.physicalLocation = { artifactLocation: { uri: pathToUri(input.uri) }, region: { startLine: line } };
  }
  return log;
}
