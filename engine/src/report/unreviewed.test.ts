/**
 * docs/decisions.md "Analysis layers": every built-in report names the resources that hold only
 * their checks' findings because the model's review failed; the compiled HTML renderer writes
 * exactly what html.liquid writes for them.
 */
import { describe, expect, it } from 'vitest';
import { compileBuiltinHtml } from './html-report';
import { buildReportModel, type ReportInput } from './model';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { BUILTIN_TEMPLATES, renderBuiltinWithLiquid } from './render';

const HTML_SOURCE = BUILTIN_TEMPLATES.find((t) => t.format === 'html')!.source;

function input(unreviewed: number): ReportInput {
  return {
    namespace: 'prod',
    generatedAt: '2026-11-01T10:00:00.000Z',
    includeSuppressed: false,
    resources: [
      buildResource({ hash: 'h-reviewed', name: 'reviewed' }),
      ...Array.from({ length: unreviewed }, (_, i) =>
        buildResource({ hash: `h-${i}`, name: `checked_${i}<&>`, lacks_model_review: true, findings: i % 2 ? [] : [buildFinding({ rule_id: `CHK-${i}` })] }),
      ),
      buildResource({ hash: 'h-pending', name: 'pending', summary: null, findings: [], lacks_model_review: false }),
    ],
  };
}

describe("the report names the resources that lack the model's review", () => {
  it('in markdown, markdown_light and html; none of it when every review is there', () => {
    const model = buildReportModel(input(2));
    expect(model.unreviewed_resources.map((r) => r.hash)).toEqual(['h-0', 'h-1']);
    for (const format of ['markdown', 'markdown_light'] as const) {
      const text = renderBuiltinWithLiquid(model, format);
      expect(text).toContain("**2 resource(s) lack the model's review** (the model failed; only their deterministic checks' findings are shown):");
      expect(text).toContain('`aws_s3_bucket.checked_0<&>`, `aws_s3_bucket.checked_1<&>`. Retry the job to add the review.');
      expect(text).not.toContain('reviewed`,');
    }
    const html = renderBuiltinWithLiquid(model, 'html');
    expect(html).toContain("<strong>2 resource(s) lack the model's review</strong>");
    expect(html).toContain('<code>aws_s3_bucket.checked_0&lt;&amp;&gt;</code>');
    const clean = buildReportModel(input(0));
    expect(clean.unreviewed_resources).toEqual([]);
    for (const format of ['markdown', 'markdown_light', 'html'] as const) expect(renderBuiltinWithLiquid(clean, format)).not.toContain("model's review");
  });

  it('lists at most 20 and says there are more', () => {
    const text = renderBuiltinWithLiquid(buildReportModel(input(25)), 'markdown');
    expect(text).toContain("**25 resource(s) lack the model's review**");
    expect(text).toContain('`aws_s3_bucket.checked_19<&>`, …. Retry');
    expect(text).not.toContain('checked_20');
  });

  it.each([0, 1, 2, 20, 25])('the compiled HTML renderer matches LiquidJS with %i such resource(s)', (n) => {
    const model = buildReportModel(input(n));
    expect(compileBuiltinHtml(HTML_SOURCE)!(model)).toBe(renderBuiltinWithLiquid(model, 'html'));
  });
});
