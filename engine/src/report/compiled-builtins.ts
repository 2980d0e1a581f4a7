import { BUILTIN_TEMPLATES, type ReportFormat } from './formats';
import { compileBuiltinHtmlSteps } from './html-report';
import type { ReportModel } from './model';
import { compileBuiltinMarkdownSteps } from './markdown-report';
import { inOneGo, type Steps } from './sliced-steps';

type StepsRenderer = (model: ReportModel) => Steps<string>;

/** The compilers of the built-in templates written as TypeScript; other formats render with LiquidJS. */
const COMPILERS: Partial<Record<ReportFormat, (source: string) => StepsRenderer | null>> = {
  html: compileBuiltinHtmlSteps,
  markdown: compileBuiltinMarkdownSteps,
};

const compiled = new Map<ReportFormat, StepsRenderer | null>();

/**
 * The built-in template of `format` as compiled TypeScript (html-report.ts, markdown-report.ts:
 * the same bytes as LiquidJS, without loading it), as steps (sliced-steps.ts: runStepsInSlices
 * renders a large report in slices of the event loop), or null when there is none for the format
 * or the loaded template is not the one it mirrors (render.ts then renders it with LiquidJS).
 */
export function compiledBuiltinSteps(format: ReportFormat): StepsRenderer | null {
  let renderer = compiled.get(format);
  if (renderer === undefined) {
    const entry = BUILTIN_TEMPLATES.find((t) => t.format === format);
    const compile = COMPILERS[format];
    renderer = entry && compile ? compile(entry.source) : null;
    compiled.set(format, renderer);
  }
  return renderer;
}

/** compiledBuiltinSteps's renderer run in one go (the in-process CLI's small reports), or null. */
export function compiledBuiltin(format: ReportFormat): ((model: ReportModel) => string) | null {
  return inOneGo(compiledBuiltinSteps(format));
}
