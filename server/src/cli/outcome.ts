import type * as Sarif from 'sarif';
import { SEVERITY_ORDER, type Severity } from '@planwarden/engine/core/finding-model';
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
  /** Accepted in the `--baseline` file (baseline.ts): suppressed, and not counted by the gate. */
  readonly baseline: boolean;
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
      baseline: props.baseline === true,
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

const JSON_ADDRESS = /"address":( ?)"((?:[^"\\]|\\.)*)"/g;
/** Candidates taken from one plan-text heading line (spaces inside an address are rare). */
const PLAN_TEXT_CANDIDATES = 8;

/**
 * The lines of `text` that name a resource address as plan JSON (`"address": "…"`, with or
 * without the space) or plan text (`# <address> …`) does, read in one pass: a lookup
 * `address → 1-based line of its first mention` (JSON with a space first, then without, then
 * plan text), or null when no line names it. Building costs O(input), each lookup O(1), so
 * locating every result of a large plan stays linear.
 */
export function addressIndex(text: string): (address: string) => number | null {
  const spaced = new Map<string, number>();
  const tight = new Map<string, number>();
  const planText = new Map<string, number>();
  let lineNo = 0;
  for (const line of text.split(/\r?\n/)) {
    lineNo += 1;
    if (line.includes('"address":')) {
      for (const m of line.matchAll(JSON_ADDRESS)) {
        const map = m[1] === ' ' ? spaced : tight;
        if (!map.has(m[2])) map.set(m[2], lineNo);
      }
    }
    // Plan text heads a change with `  # <address> will be …`: each run of the text after `# `
    // up to a space is a candidate (an address may hold spaces inside `["…"]`), a few at most.
    const at = line.search(/\S/);
    if (at !== -1 && line.startsWith('# ', at)) {
      let end = line.indexOf(' ', at + 2);
      for (let n = 0; end !== -1 && n < PLAN_TEXT_CANDIDATES; n += 1, end = line.indexOf(' ', end + 1)) {
        const key = line.slice(at + 2, end);
        if (!planText.has(key)) planText.set(key, lineNo);
      }
    }
  }
  return (address) => {
    const escaped = JSON.stringify(address).slice(1, -1);
    return spaced.get(address) ?? spaced.get(escaped) ?? tight.get(address) ?? tight.get(escaped) ?? planText.get(address) ?? null;
  };
}

/**
 * Gives every result without a file of its own (plan units, single blobs) the analysed input
 * as its physical location: `uri` (relative to the working directory, `/`-separated) and the
 * line naming the resource address (else line 1), since GitHub code scanning shows only
 * results with a file and line. The input is indexed once (addressIndex), whatever the number
 * of results. Mutates and returns `log`.
 */
export function locateInInput(log: Sarif.Log, input: { uri: string; text: string }): Sarif.Log {
  let lineOf: ((address: string) => number | null) | null = null;
  for (const result of log.runs[0]?.results ?? []) {
    const location = result.locations?.[0];
    if (!location || location.physicalLocation) continue;
    const address = location.logicalLocations?.[0]?.fullyQualifiedName;
    lineOf ??= addressIndex(input.text);
    const line = (address ? lineOf(address) : null) ?? 1;
    location.physicalLocation = { artifactLocation: { uri: pathToUri(input.uri) }, region: { startLine: line } };
  }
  return log;
}
