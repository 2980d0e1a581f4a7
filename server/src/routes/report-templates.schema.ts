import { z } from 'zod';
import { ReportFormatSchema } from './reports.schema';
import { booleanQuery } from './shared';

export { CreateTemplateSchema, PreviewTemplateSchema, UpdateTemplateSchema } from '@planwarden/engine/report/template-service';
export { ReportLinkTtlSchema } from '@planwarden/engine/report/report-link-service';

/** GET .../report-templates query. */
export const TemplatesQuerySchema = z.object({
  format: ReportFormatSchema.optional(),
  is_default: booleanQuery.optional(),
});
