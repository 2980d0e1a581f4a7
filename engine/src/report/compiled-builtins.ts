import { BUILTIN_TEMPLATES, type ReportFormat } from './formats';
import { compileBuiltinHtml } from './html-report';
import type { ReportModel } from './model';
import { compileBuiltinMarkdown } from './markdown-report';

/** The compilers of the built-in templates written as TypeScript; other formats render with LiquidJS. */
const COMPILERS: Partial<Record<ReportFormat, (source: string) => ((model: ReportModel) => string) | null>> = {
  html: compileBuiltinHtml,
  markdown: compileBuiltinMarkdown,
};

const compiled = new Map<ReportFormat, ((model: ReportModel) => string) | null>();

/**
 * The built-in template of `format` as compiled TypeScript (html-report.ts, markdown-report.ts:
 * the same bytes as LiquidJS, without loading it), or null when there is none for the format or
 * the loaded template is not the one it mirrors (render.ts then renders it with LiquidJS).
 */
export function compiledBuiltin(format: ReportFormat): ((model: ReportModel) => string) | null {
  let renderer = compiled.get(format);
  if (renderer === undefined) {
    const entry = BUILTIN_TEMPLATES.find((t) => t.format === format);
    const compile = COMPILERS[format];
    renderer = entry && compile ? compile(entry.source) : null;
    compiled.set(format, renderer);
  }
  return renderer;
}
