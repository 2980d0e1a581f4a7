import { SEVERITY_ORDER } from '../core/payload';
import type { DetectionEntry, RunComparison } from '../analysis/job-store';
import type { FindingDoc } from '../findings/finding-store';
import type { CommitState, GateOutcome } from '../integrations/gate';
import { findingPageUrl } from '../core/finding-links';

/**
 * The pull-request report comment (analysis-api.md "Code-hosting integration"): the marker
 * `<!-- service-report:{namespace} -->` on its first line, `<!-- service:ns={namespace} -->` on
 * the second, a summary first, the findings table trimmed to fit GitHub's 65,536-character
 * limit, the two links and a footer with the UTC time and the commit.
 */

/** GitHub refuses an issue comment body over 65,536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** Kept under the limit with room for the footer and the trimming note. */
const BODY_BUDGET = GITHUB_COMMENT_LIMIT - 4_096;
const CELL_MAX = 160;

/** First line of the comment: how the integration finds it again. */
export function reportMarker(namespace: string): string {
  return `<!-- service-report:${namespace} -->`;
}

/** Second line: how replies resolve to the analysis. */
export function namespaceMarker(namespace: string): string {
  return `<!-- service:ns=${namespace} -->`;
}

/** The namespace named by a comment's second marker, or null. */
export function namespaceFromBody(body: string): string | null {
  return /<!-- service:ns=([A-Za-z0-9._-]{1,128}) -->/.exec(body)?.[1] ?? null;
}

export interface CommentInput {
  readonly namespace: string;
  readonly state: CommitState | 'error';
  readonly gate: GateOutcome;
  /** Triage records of the analysed resources (every status). */
  readonly findings: readonly FindingDoc[];
  readonly detections: readonly DetectionEntry[];
  readonly jobStatus: string;
  readonly jobError: string | null;
  readonly quotaExceeded: boolean;
  readonly reportUrl: string | null;
  readonly dashboardUrl: string | null;
  readonly headSha: string;
  readonly now: Date;
  /** This push against the previous one (docs/decisions.md "Runs compared"); null or absent: no line. */
  readonly comparison?: RunComparison | null;
}

/** "+N new · −M no longer detected · K unchanged" (docs/decisions.md "Runs compared"). */
export function comparisonLine(c: RunComparison): string {
  return `+${c.new} new · −${c.no_longer_detected} no longer detected · ${c.unchanged} unchanged`;
}

const HEADLINES: Record<CommentInput['state'], string> = {
  failure: ':x: Blocking findings',
  pending: ':hourglass: Findings awaiting review',
  success: ':white_check_mark: No blocking findings',
  error: ':warning: The analysis did not complete',
};

/**
 * Text from the model or the pull request, made inert for a Markdown table cell: HTML and
 * Markdown control characters escaped, @-mentions and #-references defused, one line, at most
 * CELL_MAX characters.
 */
export function cell(text: string): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  const short = [...flat].length > CELL_MAX ? `${[...flat].slice(0, CELL_MAX - 1).join('')}…` : flat;
  return short
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1')
    .replace(/@/g, '@\u200b')
    .replace(/#(\d)/g, '#\u200b$1');
}

const STATUS_ORDER: Record<string, number> = { open: 0, needs_review: 1, acknowledged: 2, suppressed: 3, false_positive: 4 };

function sortFindings(findings: readonly FindingDoc[]): FindingDoc[] {
  return [...findings].sort(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      a.rule_id.localeCompare(b.rule_id) ||
      a.resource_address.localeCompare(b.resource_address),
  );
}

function summary(input: CommentInput): string[] {
  const lines = [`## Planwarden: ${HEADLINES[input.state]}`, ''];
  if (input.state === 'error')
    lines.push(`The analysis ended \`${cell(input.jobStatus)}\`: ${cell(input.jobError ?? 'no detail')}. Push a new commit to run it again.`, '');
  if (input.quotaExceeded) lines.push('The monthly LLM spend cap was reached: this report covers only part of the change.', '');
  const counts = SEVERITY_ORDER.map((s) => `${s} ${input.gate.open[s]}`).join(' · ');
  lines.push(
    `Open findings: ${counts} · awaiting review: ${input.gate.needsReview} · triaged: ${input.findings.filter((f) => STATUS_ORDER[f.status] >= 2).length}`,
    '',
  );
  if (input.comparison) lines.push(`Since the previous push: ${comparisonLine(input.comparison)}`, '');
  const unmatched = input.detections.filter((d) => d.analyzer === null);
  if (unmatched.length > 0) {
    const shown = unmatched
      .slice(0, 20)
      .map((d) => `\`${cell(d.path)}\``)
      .join(', ');
    lines.push(`Not analysed (no analyzer matched): ${shown}${unmatched.length > 20 ? ` and ${unmatched.length - 20} more` : ''}.`, '');
  }
  return lines;
}

function links(input: CommentInput): string {
  const parts: string[] = [];
  if (input.reportUrl) parts.push(`[Open the full report](${input.reportUrl})`);
  if (input.dashboardUrl) parts.push(`[Triage in the dashboard](${input.dashboardUrl})`);
  return parts.join(' · ');
}

function footer(input: CommentInput): string {
  const time = input.now.toISOString().replace('T', ' ').slice(0, 16);
  return `<sub>Updated ${time} UTC · commit ${cell(input.headSha.slice(0, 12))}</sub>`;
}

/**
 * The whole comment body. Always under GITHUB_COMMENT_LIMIT characters (UTF-16 code units,
 * which are never fewer than GitHub's count): rows are added while they fit the budget, and a
 * trimmed table says how many findings were left out and where the rest is.
 */
export function renderComment(input: CommentInput): string {
  const head = [reportMarker(input.namespace), namespaceMarker(input.namespace), ...summary(input)].join('\n');
  const tail = ['', links(input), '', '---', footer(input)].join('\n');
  const rows = sortFindings(input.findings).map((f) => {
    // Each title links to the finding's own page when the dashboard's address is known.
    const page = findingPageUrl(input.dashboardUrl, input.namespace, f.resource_hash, f.rule_id);
    const title = page ? `[${cell(f.title)}](${page})` : cell(f.title);
    return `| ${f.severity} | ${cell(f.status)} | \`${cell(f.rule_id)}\` | ${cell(f.resource_address)} | ${title} |`;
  });
  if (rows.length === 0) return `${head}\n${input.state === 'error' ? '' : 'No findings.'}\n${tail}`;
  const table = ['### Findings', '', '| Severity | Status | Rule | Resource | Title |', '|---|---|---|---|---|'];
  let size = head.length + tail.length + table.join('\n').length + 2;
  let shown = 0;
  for (const row of rows) {
    if (size + row.length + 1 > BODY_BUDGET) break;
    table.push(row);
    size += row.length + 1;
    shown += 1;
  }
  if (shown < rows.length) {
    const where = input.reportUrl
      ? ` — [Open the full report](${input.reportUrl}) for all of them`
      : input.dashboardUrl
        ? ` — see the dashboard for all of them`
        : '';
    table.push('', `${rows.length - shown} more finding(s) not shown${where}.`);
  }
  return `${head}\n${table.join('\n')}\n${tail}`;
}
