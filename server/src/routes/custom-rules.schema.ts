import { z } from 'zod';
import { booleanQuery } from './shared';

export { CreateCustomRuleSchema, UpdateCustomRuleSchema } from '@planwarden/engine/custom-rules/custom-rule-service';
export { CreateCategorySchema, UpdateCategorySchema } from '@planwarden/engine/custom-rules/custom-category-service';

/** GET /orgs/{org_id}/rules query (analysis-api.md "Custom rules"). */
export const CustomRulesQuerySchema = z.object({
  analyzer: z.string().min(1).optional(),
  category: z.string().min(1).optional(),
  rule_type: z.string().min(1).optional(),
  enabled: booleanQuery.optional(),
});
