import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compileBuiltinMarkdown, MARKDOWN_TEMPLATE_SHA256 } from './markdown-report';
import { buildReportModel } from './model';
import { REPORT_CASES } from '../../../tests/helpers/report-cases';
import { BUILTIN_TEMPLATES, renderBuiltinWithLiquid, renderReport } from './render';

const MARKDOWN_SOURCE = BUILTIN_TEMPLATES.find((t) => t.format === 'markdown')!.source;

describe('compiled built-in Markdown report', () => {
  it('mirrors the markdown.liquid that ships (update markdown-report.ts and its digest together with the template)', () => {
    expect(createHash('sha256').update(MARKDOWN_SOURCE, 'utf8').digest('hex')).toBe(MARKDOWN_TEMPLATE_SHA256);
    expect(compileBuiltinMarkdown(MARKDOWN_SOURCE)).not.toBeNull();
  });

  it.each(REPORT_CASES)('writes exactly what LiquidJS writes: %s', (_name, input) => {
    const model = buildReportModel(input);
    expect(compileBuiltinMarkdown(MARKDOWN_SOURCE)!(model)).toBe(renderBuiltinWithLiquid(model, 'markdown'));
  });

  it('is what renderReport uses for the built-in markdown format', async () => {
    const model = buildReportModel(REPORT_CASES[3][1]);
    expect((await renderReport(model, { format: 'markdown' })).content).toBe(renderBuiltinWithLiquid(model, 'markdown'));
  });

  it('refuses any other template, so an edited markdown.liquid falls back to LiquidJS', () => {
    expect(compileBuiltinMarkdown(`${MARKDOWN_SOURCE}\n`)).toBeNull();
    expect(compileBuiltinMarkdown('# {{ namespace }}')).toBeNull();
  });
});
