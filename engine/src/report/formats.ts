import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Report formats, template limits and the built-in template sources (analysis-api.md "Reports
 * and report links", "Report templates"), apart from render.ts so that importing them does not
 * load LiquidJS and sanitize-html (start-up time: render.ts is imported on first use).
 */

export type ReportFormat = 'markdown' | 'markdown_light' | 'html';
export const REPORT_FORMATS: readonly ReportFormat[] = ['markdown', 'markdown_light', 'html'];

export interface RenderedReport {
  content: string;
  contentType: 'text/markdown; charset=utf-8' | 'text/html; charset=utf-8';
}

/** Limits applied to org-supplied template sources. */
export const TEMPLATE_LIMITS = {
  /** Characters of template source parsed per template (parseLimit). */
  maxSourceChars: 1_000_000,
  /**
   * Wall-clock budget per render, ms (renderLimit). Rendering blocks the event loop; the
   * built-in HTML template run through LiquidJS takes 1.2-3.5 s for 10k findings (the built-in
   * report itself uses html-report.ts), so seeded copies must fit.
   */
  renderMs: 3_000,
  /** LiquidJS allocation units (memoryLimit): ranges, array and string building filters. */
  memoryUnits: 50_000_000,
  /** Characters of output (the built-in HTML template writes about 0.8 M per 1k findings). */
  maxOutputChars: 16 * 1024 * 1024,
} as const;

/** The built-in templates' names and files under templatesDir(). */
export const BUILTIN_FILES: Record<ReportFormat, { name: string; file: string }> = {
  markdown: { name: 'Built-in markdown', file: 'markdown.liquid' },
  markdown_light: { name: 'Built-in markdown_light', file: 'markdown_light.liquid' },
  html: { name: 'Built-in html', file: 'html.liquid' },
};

/** resources/templates, or `$PLANWARDEN_RESOURCES_DIR/templates` when that is set. */
export function templatesDir(): string {
  const override = process.env.PLANWARDEN_RESOURCES_DIR;
  return override ? join(override, 'templates') : fileURLToPath(new URL('../../../resources/templates/', import.meta.url));
}

/**
 * The three built-in templates, `{format, name, source}`, read once at load from
 * `templatesDir()`; POST .../report-templates/seed-builtin imports them (analysis-api.md
 * "Report templates"). Throws at import if a file is missing (a broken install).
 */
export const BUILTIN_TEMPLATES: readonly { format: ReportFormat; name: string; source: string }[] = REPORT_FORMATS.map((format) => ({
  format,
  name: BUILTIN_FILES[format].name,
  source: readFileSync(join(templatesDir(), BUILTIN_FILES[format].file), 'utf8'),
}));
