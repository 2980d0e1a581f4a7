import { z } from 'zod';
import { booleanQuery } from './shared';

/** The template formats (analysis-api.md "Report templates"): a template renders one of these. */
export const ReportFormatSchema = z.enum(['markdown', 'markdown_light', 'html']);

/**
 * The formats of GET /{namespace}/report (analysis-api.md "Reports and report links"): the
 * template formats plus `sarif` (SARIF 2.1.0 for code scanning; no template renders it).
 */
export const ReportOutputFormatSchema = z.enum([...ReportFormatSchema.options, 'sarif']);

/** GET /{namespace}/report query. */
export const ReportQuerySchema = z.object({
  analyzer: z.string().optional(), // deprecated; the analyzers are detected from the resources
  format: ReportOutputFormatSchema.default('markdown'),
  template_id: z.string().min(1).optional(),
  raw: booleanQuery.default(false),
  include_suppressed: booleanQuery.default(false),
});
