import { z } from 'zod';

/** The `{analyzer_name}` path segment: a registered analyzer's name (unknown ones answer 404). */
export const AnalyzerNameSchema = z.string().min(1).max(64);

/** GET /{analyzer_name}/rules query (analysis-api.md "Analyzers and built-in rulesets"). */
export const RulesQuerySchema = z.object({ type: z.string().min(1).max(64).optional() });
