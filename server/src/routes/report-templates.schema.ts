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

/**
 * GET /reports/{token} query: a public link pasted into chats and pull requests; parameters
 * that tools append to shared links (tracking, cache busting) are ignored rather than refused.
 */
export const SharedLinkQuerySchema = z.looseObject({});
