import { createHash } from 'node:crypto';
import type { ReportFinding, ReportModel, ReportResource } from './model';
import { inOneGo, TextParts, type Steps } from './sliced-steps';

/**
 * The built-in HTML report (resources/templates/html.liquid) as plain TypeScript, for speed:
 * LiquidJS's generator-driven interpreter spends 1.5-3.5 s on 10k findings, this writes the same
 * bytes about ten times faster (~150 ms; bench/report.bench.ts).
 *
 * html.liquid stays the source of truth: it is what POST .../report-templates/seed-builtin
 * hands to orgs, and this renderer is used only while the loaded template is byte-identical to
 * the one it was written from (HTML_TEMPLATE_SHA256). Edit the template and the digest stops
 * matching, so rendering falls back to LiquidJS until this file is brought in line; html-report.test.ts
 * checks the two produce identical output over many models.
 */

/** SHA-256 (hex) of the html.liquid this renderer reproduces. */
export const HTML_TEMPLATE_SHA256 = 'dede7207ffab5ddef70cf2f81b03356702c114de77b22bf27cf4d46855853cda';

/** html.liquid lists at most this many resources that lack the model's review (`limit: 20`). */
const UNREVIEWED_LISTED = 20;

const AMP = /&/g;
const LT = /</g;
const GT = />/g;
const QUOT = /"/g;
const APOS = /'/g;
const NEEDS_ESCAPE = /[&<>"']/;

/** Liquid's `escape` filter, byte for byte (liquidjs 10: `&#34;` and `&#39;` for quotes). */
function esc(value: unknown): string {
  const s = out(value);
  if (!NEEDS_ESCAPE.test(s)) return s;
  // Chained literal replaces beat one replace with a callback (no call per match).
  return s.replace(AMP, '&amp;').replace(LT, '&lt;').replace(GT, '&gt;').replace(QUOT, '&#34;').replace(APOS, '&#39;');
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

/**
 * A renderer for `source` when it is the template this file reproduces, else null. The static
 * head (doctype, meta, CSS) is taken from the source itself, so it exists in one place only.
 */
export function compileBuiltinHtml(source: string): ((model: ReportModel) => string) | null {
  return inOneGo(compileBuiltinHtmlSteps(source));
}

/**
 * compileBuiltinHtml's renderer as steps (sliced-steps.ts), for rendering a large report in
 * slices of the event loop; null as for compileBuiltinHtml.
 */
export function compileBuiltinHtmlSteps(source: string): ((model: ReportModel) => Steps<string>) | null {
  if (createHash('sha256').update(source, 'utf8').digest('hex') !== HTML_TEMPLATE_SHA256) return null;
  const start = source.indexOf('<!DOCTYPE html>');
  const end = source.indexOf('</head>');
  const title = '{{ namespace | escape }}';
  const head = source.slice(start, end);
  const at = head.indexOf(title);
  if (start < 0 || end < 0 || at < 0 || head.indexOf(title, at + 1) >= 0) return null;
  const beforeTitle = head.slice(0, at);
  const afterTitle = head.slice(at + title.length);
  return (model) => htmlSteps(model, beforeTitle, afterTitle);
}

function* htmlSteps(m: ReportModel, beforeTitle: string, afterTitle: string): Steps<string> {
  const multi = truthy(m.multi_analyzer);
  const doc = new TextParts();
  const push = (s: string) => doc.push(s);

  push(`${beforeTitle}${esc(m.namespace)}${afterTitle}</head>\n<body>\n<header>\n`);
  push(`<h1>Planwarden report: ${esc(m.namespace)}</h1>\n`);
  push(`<p class="meta">Generated ${esc(m.generated_at)}`);
  if (truthy(m.job)) push(` · job <code>${esc(m.job!.job_id)}</code> (${esc(m.job!.status)})`);
  push('</p>');
  if (truthy(m.quota_exceeded)) {
    push(
      `\n<p class="notice"><strong>Partial report:</strong> the monthly LLM spend cap was reached before every resource was analysed; ${out(m.resource_counts.pending)} resource(s) are still pending.</p>`,
    );
  }
  if (m.unreviewed_resources.length > 0) {
    const listed = m.unreviewed_resources.slice(0, UNREVIEWED_LISTED).map((r) => `<code>${esc(r.address)}</code>`);
    const more = m.unreviewed_resources.length > UNREVIEWED_LISTED ? ', …' : '';
    push(
      `\n<p class="notice"><strong>${out(m.unreviewed_resources.length)} resource(s) lack the model's review</strong> (the model failed; only their deterministic checks' findings are shown): ${listed.join(', ')}${more}. Retry the job to add the review.</p>`,
    );
  }
  if (truthy(m.report_html_url) || truthy(m.dashboard_url)) {
    push('\n<p>');
    if (truthy(m.report_html_url)) push(`<a href="${esc(m.report_html_url)}">Open the full report</a>`);
    if (truthy(m.report_html_url) && truthy(m.dashboard_url)) push(' · ');
    if (truthy(m.dashboard_url)) push(`<a href="${esc(m.dashboard_url)}">Open the dashboard</a>`);
    push('</p>');
  }
  push('\n</header>\n<main>\n<section>\n<h2>Summary</h2>\n<table class="summary">\n<thead><tr><th>Severity</th><th>Findings</th></tr></thead>\n<tbody>');
  for (const s of m.severities) {
    push(`\n<tr><td><span class="sev sev-${out(s.severity_class)}">${esc(s.severity)}</span></td><td class="num">${out(s.count)}</td></tr>`);
  }
  const rc = m.resource_counts;
  push(`\n<tr><th>Total</th><th class="num">${out(m.counts.total)}</th></tr>\n</tbody>\n</table>\n`);
  push(`<p>Resources: ${out(rc.total)} in total, ${out(rc.analysed)} analysed, ${out(rc.pending)} pending, ${out(rc.clean)} without findings.`);
  if (m.hidden_count > 0) push(` ${out(m.hidden_count)} suppressed or false-positive finding(s) hidden.`);
  if (truthy(m.include_suppressed)) push(' Suppressed and false-positive findings are included.');
  push('</p>\n</section>\n<section>\n<h2>Findings</h2>');

  if (truthy(m.has_findings)) {
    push(
      `\n<table class="findings">\n<thead><tr><th>#</th><th>Severity</th><th>Rule</th><th>Resource</th><th>Title</th><th>Status</th>${multi ? '<th>Analyzer</th>' : ''}</tr></thead>\n<tbody>`,
    );
    for (const [i, f] of m.findings.entries()) {
      push(findingRow(f, i + 1, multi));
      if (i % 64 === 63) {
        doc.settle();
        yield;
      }
    }
    push('\n</tbody>\n</table>');
    for (const g of m.groups) {
      if (multi) push(`\n<h3>Analyzer: ${esc(g.analyzer)}</h3>`);
      for (const [i, f] of g.findings.entries()) {
        push(findingArticle(f, multi));
        if (i % 32 === 31) {
          doc.settle();
          yield;
        }
      }
    }
  } else {
    push('\n<p>No findings');
    if (m.hidden_count > 0) push(` to show (${out(m.hidden_count)} hidden by triage status)`);
    push('.</p>');
  }
  push('\n</section>');
  if (m.clean_resources.length > 0) push(yield* resourceList('Resources analysed with no findings', m.clean_resources, multi));
  if (m.pending_resources.length > 0) push(yield* resourceList('Resources not analysed yet', m.pending_resources, multi));
  push('\n</main>\n</body>\n</html>\n');
  return doc.text();
}

function findingRow(f: ReportFinding, index: number, multi: boolean): string {
  const status = truthy(f.badge) ? `<span class="badge">${esc(f.badge)}</span>` : esc(f.status_label);
  return (
    `\n<tr><td><a href="#${out(f.id)}">${index}</a></td><td><span class="sev sev-${out(f.severity_class)}">${esc(f.severity)}</span></td>` +
    `<td><code>${esc(f.rule_id)}</code></td><td><code>${esc(f.resource_address)}</code></td><td>${esc(f.title)}</td>` +
    `<td>${status}</td>${multi ? `<td>${esc(f.analyzer)}</td>` : ''}</tr>`
  );
}

function findingArticle(f: ReportFinding, multi: boolean): string {
  let s =
    `\n<article class="finding" id="${out(f.id)}">\n` +
    `<h3><span class="sev sev-${out(f.severity_class)}">${esc(f.severity)}</span> <code>${esc(f.rule_id)}</code> ${esc(f.title)}` +
    `${truthy(f.badge) ? ` <span class="badge">${esc(f.badge)}</span>` : ''}</h3>\n<dl>\n` +
    `<dt>Resource</dt><dd><code>${esc(f.resource_address)}</code> (${esc(f.action)})</dd>\n` +
    `<dt>Severity</dt><dd>${esc(f.severity)} (confidence ${esc(f.confidence)})</dd>\n` +
    `<dt>Status</dt><dd>${esc(f.status_label)}</dd>`;
  if (multi) s += `\n<dt>Analyzer</dt><dd>${esc(f.analyzer)}</dd>`;
  if (f.tags.length > 0) s += `\n<dt>Tags</dt><dd>${f.tags.map((t) => `<code>${esc(t)}</code>`).join(', ')}</dd>`;
  s +=
    `\n<dt>Risk</dt><dd>${esc(f.risk)}</dd>\n<dt>Why it matters</dt><dd>${esc(f.why_it_matters)}</dd>\n` +
    `<dt>Suggested next step</dt><dd>${esc(f.suggested_next_step)}</dd>\n</dl>`;
  if (truthy(f.has_evidence)) s += `\n<p><strong>Evidence</strong></p>\n<pre><code>${f.evidence.map(esc).join('\n')}</code></pre>`;
  return `${s}\n</article>`;
}

function* resourceList(heading: string, resources: readonly ReportResource[], multi: boolean): Steps<string> {
  let s = `\n<section>\n<h2>${heading}</h2>\n<ul>`;
  for (const [i, r] of resources.entries()) {
    s += `\n<li><code>${esc(r.address)}</code> <span class="muted">(${esc(r.action)}${multi ? `, ${esc(r.analyzer)}` : ''})</span></li>`;
    if (i % 256 === 255) yield;
  }
  return `${s}\n</ul>\n</section>`;
}
