import { CaptureTag, Context, Liquid, toValue, toValueSync, type Emitter, type FS, type Template } from 'liquidjs';
import type sanitizeHtml from 'sanitize-html';
import { ValidationError } from '../core/errors';
import { compiledBuiltinSteps } from './compiled-builtins';
import { runStepsInSlices } from './sliced-steps';
import { BUILTIN_FILES, BUILTIN_TEMPLATES, REPORT_FORMATS, TEMPLATE_LIMITS, type RenderedReport, type ReportFormat } from './formats';
import { buildReportModel, type ReportModel } from './model';
import { markdownCell, markdownCode, markdownFence, markdownText } from './markdown-escape';
import { driveInSlices } from './liquid-slices';

// Re-exported for existing importers; modules that must not load LiquidJS import './formats'.
export { BUILTIN_TEMPLATES, REPORT_FORMATS, TEMPLATE_LIMITS, templatesDir, type RenderedReport, type ReportFormat } from './formats';

/**
 * Report rendering with LiquidJS (DESIGN.md "sandboxed text templates"): the three built-in
 * templates in resources/templates, and org templates whose source is untrusted.
 * analysis-api.md "Reports and report links", "Report templates".
 */

// ---------------------------------------------------------------------------------------------
// Escaping filters. Every LLM-written string reaches a report through one of these (Markdown)
// or Liquid's own `escape` (HTML).

/** Markdown table cell / single-line text: one line, `|` `<` `>` `` ` `` and emphasis neutralised. */
export function mdCell(value: unknown): string {
  return markdownCell(text(value));
}

/** Markdown paragraph text: keeps line breaks, neutralises inline syntax and line-start blocks. */
export function mdText(value: unknown): string {
  return markdownText(text(value));
}

/** Inline code span whose fence is longer than any backtick run inside; `inTable` escapes `|`. */
export function mdCode(value: unknown, inTable?: unknown): string {
  return markdownCode(text(value), inTable);
}

/** Fenced code block (string, or array joined by newlines) whose fence outlasts any run inside. */
export function codeFence(value: unknown, lang?: unknown): string {
  return markdownFence(Array.isArray(value) ? value.map((v) => text(v)).join('\n') : text(value), lang);
}

function text(value: unknown): string {
  const v = toValue(value) as unknown;
  return v === null || v === undefined ? '' : String(v);
}

// ---------------------------------------------------------------------------------------------
// Engines.

/** No include, render or layout can read anything: there is no file system. */
const NO_FS: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async (file) => {
    throw new Error(`templates cannot read files (${file})`);
  },
  readFileSync: (file) => {
    throw new Error(`templates cannot read files (${file})`);
  },
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false,
  sep: '/',
  dirname: () => '',
};

function createEngine(limits: { parseLimit: number; renderLimit: number; memoryLimit: number }): Liquid {
  const liquid = new Liquid({
    ownPropertyOnly: true, // no prototype walk: constructor, __proto__ are undefined
    strictFilters: true, // a misspelt escaping filter must fail, not pass text through raw
    strictVariables: true, // a typo or a reach outside the model fails with its name
    lenientIf: true, // ... except in `if` / `unless` / `default`, where absence is a question
    fs: NO_FS,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    dynamicPartials: false,
    cache: false,
    jsTruthy: false,
    timezoneOffset: 0,
    ...limits,
  });
  liquid.registerTag('capture', ChargedCaptureTag);
  liquid.registerFilter('md_cell', function (this: { context: Context }, v: unknown) {
    return charge(this.context, mdCell(v));
  });
  liquid.registerFilter('md_text', function (this: { context: Context }, v: unknown) {
    return charge(this.context, mdText(v));
  });
  liquid.registerFilter('md_code', function (this: { context: Context }, v: unknown, t?: unknown) {
    return charge(this.context, mdCode(v, t));
  });
  liquid.registerFilter('code_fence', function (this: { context: Context }, v: unknown, l?: unknown) {
    return charge(this.context, codeFence(v, l));
  });
  return liquid;
}

/**
 * liquidjs charges `append` and friends to memoryLimit but not `capture`, so doubling a string
 * with `{% capture s %}{{ s }}{{ s }}{% endcapture %}` would escape the budget.
 */
class ChargedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    yield* super.render(ctx);
    const captured: unknown = (ctx.bottom() as Record<string, unknown>)[this.variable];
    if (typeof captured === 'string') ctx.memoryLimit.use(captured.length);
  }
}

function charge(ctx: Context, out: string): string {
  ctx.memoryLimit.use(out.length);
  return out;
}

let userEngineOnce: Liquid | undefined;

/** The sandboxed engine of org templates, made on first use: a built-in report never needs it. */
function userEngine(): Liquid {
  userEngineOnce ??= createEngine({
    parseLimit: TEMPLATE_LIMITS.maxSourceChars,
    renderLimit: TEMPLATE_LIMITS.renderMs,
    memoryLimit: TEMPLATE_LIMITS.memoryUnits,
  });
  return userEngineOnce;
}
// Built-ins are ours and their cost grows with the namespace: same sandbox, no budget.
const builtinEngine = createEngine({ parseLimit: Infinity, renderLimit: Infinity, memoryLimit: Infinity });

/** Stops the render as soon as output passes the cap, before the string gets any bigger. */
class CappedEmitter implements Emitter {
  buffer = '';
  overflowed = false;
  constructor(private readonly cap: number) {}
  write(html: unknown): void {
    const s = stringify(html);
    if (this.buffer.length + s.length > this.cap) {
      this.overflowed = true;
      throw new Error('output too large');
    }
    this.buffer += s;
  }
}

function stringify(value: unknown): string {
  const v = toValue(value) as unknown;
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(stringify).join('');
  return String(v);
}

function renderWith(liquid: Liquid, templates: Template[], model: ReportModel, cap: number): string {
  const ctx = new Context(model, liquid.options, { sync: true }, { liquid });
  const emitter = new CappedEmitter(cap);
  try {
    // Synchronous drive: nothing a report template may do is asynchronous (there is no file
    // system), and it runs about a third faster than liquidjs's promise driver.
    toValueSync(liquid.renderer.renderTemplates(templates, ctx, emitter));
  } catch (err) {
    if (emitter.overflowed) throw new Error(`output exceeds ${cap} characters`);
    throw err;
  }
  return emitter.buffer;
}

function parseUntrusted(source: string): Template[] {
  if (typeof source !== 'string') throw new ValidationError('template failed to render: source must be a string');
  if (source.length > TEMPLATE_LIMITS.maxSourceChars) {
    throw new ValidationError(`template failed to render: source exceeds ${TEMPLATE_LIMITS.maxSourceChars} characters`);
  }
  try {
    return userEngine().parse(source);
  } catch (err) {
    throw new ValidationError(`template failed to render: ${messageOf(err)}`);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------
// Built-in templates.

const builtinParsed = new Map<ReportFormat, Template[]>();

function builtinTemplate(format: ReportFormat): Template[] {
  let parsed = builtinParsed.get(format);
  if (!parsed) {
    const entry = BUILTIN_TEMPLATES.find((t) => t.format === format);
    if (!entry) throw new ValidationError(`unknown report format: ${format}`);
    parsed = builtinEngine.parse(entry.source, BUILTIN_FILES[format].file);
    builtinParsed.set(format, parsed);
  }
  return parsed;
}

/**
 * A built-in template rendered by LiquidJS, never by a compiled renderer (compiled-builtins.ts):
 * html-report.test.ts, markdown-report.test.ts and the benchmark compare the two. Returns the document; throws what LiquidJS throws.
 */
export function renderBuiltinWithLiquid(model: ReportModel, format: ReportFormat): string {
  return renderWith(builtinEngine, builtinTemplate(format), model, Infinity);
}

/**
 * renderBuiltinWithLiquid's output, rendered in slices of the event loop (liquid-slices.ts): a
 * large namespace's report never holds the server for the whole render.
 */
async function renderBuiltinInSlices(model: ReportModel, format: ReportFormat): Promise<string> {
  const ctx = new Context(model, builtinEngine.options, { sync: true }, { liquid: builtinEngine });
  const emitter = new CappedEmitter(Infinity);
  await driveInSlices(builtinEngine.renderer.renderTemplates(builtinTemplate(format), ctx, emitter));
  return emitter.buffer;
}

// ---------------------------------------------------------------------------------------------
// Public API.

/**
 * Render a report model in `format` (markdown, markdown_light, html), with the built-in
 * template or, given `source`, an org's own template.
 *
 * `source` is untrusted: it runs in the sandboxed engine (own properties only, no file system,
 * strict variables and filters, parse / time / allocation limits, an output cap) and its HTML
 * output is passed through an HTML sanitiser (no scripts, event handlers, frames or non-http
 * links) as a second line of defence against templates that forget `| escape`.
 * Returns `{content, contentType}` (`text/markdown; charset=utf-8` or `text/html; charset=utf-8`).
 * Throws ValidationError (422) "template failed to render: ..." for any failure of a `source`;
 * a built-in failing is a bug and throws its own error.
 * Spec: analysis-api.md "Reports and report links" (422 template failed to render).
 */
export async function renderReport(model: ReportModel, options: { format: ReportFormat; source?: string }): Promise<RenderedReport> {
  const { format, source } = options;
  if (!REPORT_FORMATS.includes(format)) throw new ValidationError(`unknown report format: ${String(format)}`);
  const contentType = format === 'html' ? 'text/html; charset=utf-8' : 'text/markdown; charset=utf-8';
  if (source === undefined) {
    // Either way in slices of the event loop: a large namespace's report takes hundreds of ms to render.
    const fast = compiledBuiltinSteps(format);
    const content = fast ? await runStepsInSlices(fast(model)) : await renderBuiltinInSlices(model, format);
    return { content, contentType };
  }
  const templates = parseUntrusted(source);
  let content: string;
  try {
    content = renderWith(userEngine(), templates, model, TEMPLATE_LIMITS.maxOutputChars);
  } catch (err) {
    throw new ValidationError(`template failed to render: ${messageOf(err)}`);
  }
  if (format === 'html') content = await sanitizeDocument(content);
  return { content, contentType };
}

/**
 * Check an org template source before it is stored: it must parse in the sandbox and render a
 * sample report (several findings, two analyzers, a clean and a pending resource) in `format`.
 * Resolves to nothing; throws ValidationError (422) with the parse or render error.
 * Spec: analysis-api.md "Report templates" (POST / PATCH 422).
 */
export async function validateTemplateSource(source: string, format: ReportFormat = 'markdown'): Promise<void> {
  await renderReport(sampleModel(), { format, source });
}

/** The sanitiser's options; `defaults` are the loaded module's. */
function sanitizeOptions(sanitize: typeof sanitizeHtml): sanitizeHtml.IOptions {
  return {
    allowedTags: [
      ...sanitize.defaults.allowedTags,
      'html',
      'head',
      'body',
      'meta',
      'title',
      'style',
      'span',
      'details',
      'summary',
      'section',
      'header',
      'footer',
      'main',
    ],
    allowedAttributes: {
      '*': ['class', 'id', 'style', 'title', 'lang', 'dir', 'colspan', 'rowspan', 'align'],
      a: ['href', 'name', 'rel', 'target'],
      meta: ['charset', 'name', 'content'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowProtocolRelative: false,
    allowVulnerableTags: true, // <style>: CSS is allowed, scripts never are
  };
}

let sanitizer: Promise<(html: string) => string> | undefined;

/**
 * sanitize-html with its options, loaded on the first org HTML template: it and its CSS parser
 * are most of the renderer's code, and no built-in report (the `planwarden` command's Markdown,
 * the compiled HTML) passes through it.
 */
function loadSanitizer(): Promise<(html: string) => string> {
  sanitizer ??= import('sanitize-html').then(({ default: sanitize }) => {
    const options = sanitizeOptions(sanitize);
    return (html: string) => sanitize(html, options);
  });
  return sanitizer;
}

async function sanitizeDocument(html: string): Promise<string> {
  const clean = (await loadSanitizer())(html);
  // The parser drops the doctype; put it back so browsers stay out of quirks mode.
  return /^\s*<!doctype html/i.test(html) ? `<!DOCTYPE html>\n${clean.replace(/^\s+/, '')}` : clean;
}

function sampleModel(): ReportModel {
  const finding = (rule_id: string, severity: 'HIGH' | 'LOW', status: 'open' | 'acknowledged') => ({
    rule_id,
    title: 'Sample finding',
    severity,
    confidence: 'HIGH' as const,
    risk: 'Sample risk.',
    why_it_matters: 'Sample reason.',
    suggested_next_step: 'Sample step.',
    evidence: ['sample = true'],
    resource_address: 'aws_s3_bucket.sample',
    tags: ['sample'],
    status,
  });
  return buildReportModel({
    namespace: 'sample',
    generatedAt: '2025-01-01T00:00:00.000Z',
    includeSuppressed: false,
    report_html_url: 'https://example.com/reports/sample',
    dashboard_url: 'https://example.com/',
    quota_exceeded: true,
    job: { job_id: 'job-sample', status: 'done' },
    resources: [
      {
        hash: 'h1',
        type: 'aws_s3_bucket',
        name: 'sample',
        action: 'create',
        analyzer: 'terraform',
        summary: 'Sample.',
        findings: [finding('S3-001', 'HIGH', 'open'), finding('S3-002', 'LOW', 'acknowledged')],
      },
      { hash: 'h2', type: 'aws_iam_role', name: 'clean', action: 'update', analyzer: 'terraform', summary: 'Fine.', findings: [] },
      { hash: 'h3', type: 'file', name: 'main.tf', action: 'update', analyzer: 'codediff', summary: null, findings: [] },
    ],
  });
}
