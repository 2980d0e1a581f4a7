import { createHash } from 'node:crypto';
import { markdownCell, markdownCode, markdownFence, markdownText } from './markdown-escape';
import type { ReportFinding, ReportModel, ReportResource } from './model';
import { inOneGo, TextParts, type Steps } from './sliced-steps';

/**
 * The built-in Markdown report (resources/templates/markdown.liquid) as plain TypeScript, as
 * html-report.ts is for the HTML one: the same bytes without loading or running LiquidJS, whose
 * start-up and generator-driven interpreter are most of a small plan's report time in the
 * `planwarden` command (bench/cli.bench.ts).
 *
 * markdown.liquid stays the source of truth (seeded to orgs, and what renders when it changes):
 * this renderer is used only while the loaded template is byte-identical to the one it was
 * written from (MARKDOWN_TEMPLATE_SHA256); markdown-report.test.ts checks the two produce
 * identical output over many models.
 */

/** SHA-256 (hex) of the markdown.liquid this renderer reproduces. */
export const MARKDOWN_TEMPLATE_SHA256 = '89542b23b6d8937aa5218ba65aa4e0fe2115957c2763525064ecf5452c356c0b';

/** markdown.liquid lists at most this many resources that lack the model's review (`limit: 20`). */
const UNREVIEWED_LISTED = 20;

/** A renderer for `source` when it is the template this file reproduces, else null. */
export function compileBuiltinMarkdown(source: string): ((model: ReportModel) => string) | null {
  return inOneGo(compileBuiltinMarkdownSteps(source));
}

/**
 * compileBuiltinMarkdown's renderer as steps (sliced-steps.ts), for rendering a large report in
 * slices of the event loop; null as for compileBuiltinMarkdown.
 */
export function compileBuiltinMarkdownSteps(source: string): ((model: ReportModel) => Steps<string>) | null {
  if (createHash('sha256').update(source, 'utf8').digest('hex') !== MARKDOWN_TEMPLATE_SHA256) return null;
  return markdownSteps;
}

/** `{{ value }}` without a filter: nil prints nothing, everything else its string form. */
function out(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === null || value === undefined ? '' : String(value);
}

/** Liquid truthiness (jsTruthy off): only false and nil are false. */
function truthy(value: unknown): boolean {
  return value !== false && value !== null && value !== undefined;
}

const cell = (value: unknown) => markdownCell(out(value));
const code = (value: unknown, inTable?: boolean) => markdownCode(out(value), inTable);
const para = (value: unknown) => markdownText(out(value));

function* markdownSteps(m: ReportModel): Steps<string> {
  const multi = truthy(m.multi_analyzer);
  const doc = new TextParts();
  const push = (s: string) => doc.push(s);
  push(`# Planwarden report: ${cell(m.namespace)}\n\nGenerated ${cell(m.generated_at)}`);
  if (truthy(m.job)) push(` · job ${code(m.job!.job_id)} (${cell(m.job!.status)})`);
  if (truthy(m.quota_exceeded)) {
    push(
      `\n\n> **Partial report:** the monthly LLM spend cap was reached before every resource was analysed; ${out(m.resource_counts.pending)} resource(s) are still pending.`,
    );
  }
  if (m.unreviewed_resources.length > 0) {
    const listed = m.unreviewed_resources.slice(0, UNREVIEWED_LISTED).map((r) => code(r.address));
    const more = m.unreviewed_resources.length > UNREVIEWED_LISTED ? ', …' : '';
    push(
      `\n\n> **${out(m.unreviewed_resources.length)} resource(s) lack the model's review** (the model failed; only their deterministic checks' findings are shown): ${listed.join(', ')}${more}. Retry the job to add the review.`,
    );
  }
  push('\n\n## Summary\n\n| Severity | Findings |\n|---|---:|');
  for (const s of m.severities) push(`\n| ${cell(s.severity)} | ${out(s.count)} |`);
  const rc = m.resource_counts;
  push(`\n| **Total** | **${out(m.counts.total)}** |\n\n`);
  push(`Resources: ${out(rc.total)} in total, ${out(rc.analysed)} analysed, ${out(rc.pending)} pending, ${out(rc.clean)} without findings.`);
  if (m.hidden_count > 0) push(` ${out(m.hidden_count)} suppressed or false-positive finding(s) hidden.`);
  if (truthy(m.include_suppressed)) push(' Suppressed and false-positive findings are included.');
  push('\n\n## Findings\n');
  if (truthy(m.has_findings)) {
    push(`\n| # | Severity | Rule | Resource | Title | Status |${multi ? ' Analyzer |' : ''}\n|---|---|---|---|---|---|${multi ? '---|' : ''}`);
    for (const [i, f] of m.findings.entries()) {
      push(findingRow(f, i + 1, multi));
      if (i % 64 === 63) {
        doc.settle();
        yield;
      }
    }
    for (const g of m.groups) {
      if (multi) push(`\n\n### Analyzer: ${cell(g.analyzer)}`);
      for (const [i, f] of g.findings.entries()) {
        push(findingSection(f, multi));
        if (i % 32 === 31) {
          doc.settle();
          yield;
        }
      }
    }
  } else {
    push(`\nNo findings${m.hidden_count > 0 ? ` to show (${out(m.hidden_count)} hidden by triage status)` : ''}.`);
  }
  if (m.clean_resources.length > 0) push(yield* resourceList('Resources analysed with no findings', m.clean_resources, multi));
  if (m.pending_resources.length > 0) push(yield* resourceList('Resources not analysed yet', m.pending_resources, multi));
  push('\n');
  return doc.text();
}

function findingRow(f: ReportFinding, index: number, multi: boolean): string {
  return (
    `\n| ${index} | ${cell(f.severity)} | ${code(f.rule_id, true)} | ${code(f.resource_address, true)} | ${cell(f.title)} | ${cell(f.status_label)} |` +
    (multi ? ` ${cell(f.analyzer)} |` : '')
  );
}

function findingSection(f: ReportFinding, multi: boolean): string {
  const badge = truthy(f.badge);
  let s =
    `\n\n${multi ? '####' : '###'} ${cell(f.severity)} · ${cell(f.rule_id)}: ${cell(f.title)}${badge ? ` · _${cell(f.badge)}_` : ''}\n\n` +
    `- **Rule:** ${code(f.rule_id)}\n` +
    `- **Severity:** ${cell(f.severity)} (confidence ${cell(f.confidence)})\n` +
    `- **Resource:** ${code(f.resource_address)} (${cell(f.action)})\n` +
    `- **Status:** ${badge ? `**${cell(f.badge)}**` : cell(f.status_label)}`;
  if (multi) s += `\n- **Analyzer:** ${cell(f.analyzer)}`;
  if (f.tags.length > 0) s += `\n- **Tags:** ${f.tags.map((t) => code(t)).join(', ')}`;
  s += `\n\n**Risk:** ${para(f.risk)}\n\n**Why it matters:** ${para(f.why_it_matters)}\n\n**Suggested next step:** ${para(f.suggested_next_step)}`;
  if (truthy(f.has_evidence)) s += `\n\n**Evidence:**\n\n${markdownFence(f.evidence.map(out).join('\n'))}`;
  return s;
}

function* resourceList(heading: string, resources: readonly ReportResource[], multi: boolean): Steps<string> {
  let s = `\n\n## ${heading}`;
  for (const [i, r] of resources.entries()) {
    s += `\n- ${code(r.address)} (${cell(r.action)}${multi ? `, ${cell(r.analyzer)}` : ''})`;
    if (i % 256 === 255) yield;
  }
  return s;
}
