import { CaptureTag, Context, Liquid, toValue, toValueSync, type Emitter, type FS, type Template } from 'liquidjs';
import sanitizeHtml from 'sanitize-html';
import { ValidationError } from '../core/errors';
import { compileBuiltinHtml } from './html-report';
import { BUILTIN_FILES, BUILTIN_TEMPLATES, REPORT_FORMATS, TEMPLATE_LIMITS, type RenderedReport, type ReportFormat } from './formats';
import { buildReportModel, type ReportModel } from './model';
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

const MD_INLINE = /[\\`*_[\]|~<>&#]/g;

function mdInline(s: string): string {
  return s.replace(MD_INLINE, (ch) => (ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '&' ? '&amp;' : `\\${ch}`));
}

/** Markdown table cell / single-line text: one line, `|` `<` `>` `` ` `` and emphasis neutralised. */
export function mdCell(value: unknown): string {
  return mdInline(text(value).replace(/\s+/g, ' ').trim());
}

/** Markdown paragraph text: keeps line breaks, neutralises inline syntax and line-start blocks. */
export function mdText(value: unknown): string {
  const lines = text(value)
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trim());
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    // Leading whitespace is gone (no indented code); escape block markers: headings, lists,
    // setext underlines, numbered lists. `>` becomes an entity, which cannot start a quote.
    out.push(
      mdInline(line)
        .replace(/^([+=-])/, '\\$1')
        .replace(/^(\d+)([.)])/, '$1\\$2'),
    );
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** Inline code span whose fence is longer than any backtick run inside; `inTable` escapes `|`. */
export function mdCode(value: unknown, inTable?: unknown): string {
  let s = text(value).replace(/\s*[\r\n]+\s*/g, ' ');
  if (s === '') return '';
  const fence = '`'.repeat(longestRun(s, '`') + 1);
  if (inTable === true) s = s.replace(/\|/g, '\\|');
  const pad = s.startsWith('`') || s.endsWith('`') || /^ .* $/.test(s) ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** Fenced code block (string, or array joined by newlines) whose fence outlasts any run inside. */
export function codeFence(value: unknown, lang?: unknown): string {
  const raw = Array.isArray(value) ? value.map((v) => text(v)).join('\n') : text(value);
  const body = raw.replace(/\r\n?/g, '\n').replace(/\n$/, '');
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  const info = typeof lang === 'string' ? lang.replace(/[^A-Za-z0-9_+.-]/g, '') : '';
  return `${fence}${info}\n${body}\n${fence}`;
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of s) {
    run = c === ch ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
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

const userEngine = createEngine({
  parseLimit: TEMPLATE_LIMITS.maxSourceChars,
  renderLimit: TEMPLATE_LIMITS.renderMs,
  memoryLimit: TEMPLATE_LIMITS.memoryUnits,
});
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
    return userEngine.parse(source);
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
 * A built-in template rendered by LiquidJS, never by the compiled HTML renderer: html-report.test.ts
 * and the benchmark compare the two. Returns the document; throws what LiquidJS throws.
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

let builtinHtml: ((model: ReportModel) => string) | null | undefined;

/**
 * The built-in HTML report as compiled TypeScript (html-report.ts: same bytes, ~10× faster than
 * LiquidJS on large namespaces), or null when the loaded html.liquid is not the one it mirrors.
 */
function builtinHtmlRenderer(): ((model: ReportModel) => string) | null {
  if (builtinHtml === undefined) {
    const entry = BUILTIN_TEMPLATES.find((t) => t.format === 'html');
    builtinHtml = entry ? compileBuiltinHtml(entry.source) : null;
  }
  return builtinHtml;
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
    const fast = format === 'html' ? builtinHtmlRenderer() : null;
    const content = fast ? fast(model) : await renderBuiltinInSlices(model, format);
    return { content, contentType };
  }
  const templates = parseUntrusted(source);
  let content: string;
  try {
    content = renderWith(userEngine, templates, model, TEMPLATE_LIMITS.maxOutputChars);
  } catch (err) {
    throw new ValidationError(`template failed to render: ${messageOf(err)}`);
  }
  if (format === 'html') content = sanitizeDocument(content);
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

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
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

function sanitizeDocument(html: string): string {
  const clean = sanitizeHtml(html, SANITIZE_OPTIONS);
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
