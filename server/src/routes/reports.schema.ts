import { z } from 'zod';
import { booleanQuery } from './shared';

/** The report formats of GET /{namespace}/report (analysis-api.md "Reports and report links"). */
export const ReportFormatSchema = z.enum(['markdown', 'markdown_light', 'html']);

/** GET /{namespace}/report query. */
export const ReportQuerySchema = z.object({
  analyzer: z.string().optional(), // deprecated; the analyzers are detected from the resources
  format: ReportFormatSchema.default('markdown'),
  template_id: z.string().min(1).optional(),
  raw: booleanQuery.default(false),
  include_suppressed: booleanQuery.default(false),
});
