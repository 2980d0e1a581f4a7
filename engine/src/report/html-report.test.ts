import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compileBuiltinHtml, HTML_TEMPLATE_SHA256 } from './html-report';
import { buildReportModel } from './model';
import { REPORT_CASES as CASES } from '../../../tests/helpers/report-cases';
import { BUILTIN_TEMPLATES, renderBuiltinWithLiquid, renderReport } from './render';

const HTML_SOURCE = BUILTIN_TEMPLATES.find((t) => t.format === 'html')!.source;

describe('compiled built-in HTML report', () => {
  it('mirrors the html.liquid that ships (update html-report.ts and its digest together with the template)', () => {
    expect(createHash('sha256').update(HTML_SOURCE, 'utf8').digest('hex')).toBe(HTML_TEMPLATE_SHA256);
    expect(compileBuiltinHtml(HTML_SOURCE)).not.toBeNull();
  });

  it.each(CASES)('writes exactly what LiquidJS writes: %s', (_name, input) => {
    const model = buildReportModel(input);
    expect(compileBuiltinHtml(HTML_SOURCE)!(model)).toBe(renderBuiltinWithLiquid(model, 'html'));
  });

  it('is what renderReport uses for the built-in html format', async () => {
    const model = buildReportModel(CASES[3][1]);
    expect((await renderReport(model, { format: 'html' })).content).toBe(renderBuiltinWithLiquid(model, 'html'));
  });

  it('refuses any other template, so an edited html.liquid falls back to LiquidJS', () => {
    expect(compileBuiltinHtml(`${HTML_SOURCE}\n`)).toBeNull();
    expect(compileBuiltinHtml('<p>{{ namespace }}</p>')).toBeNull();
  });
});
