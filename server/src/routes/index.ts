import type { RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { adminRoutes } from './admin';
import { analyzeRoutes } from './analyze';
import { authRoutes } from './auth';
import { analyzerRoutes } from './analyzers';
import { healthRoutes } from './health';
import { ingestRoutes } from './ingest';
import { inviteRoutes } from './invites';
import { keyRoutes } from './keys';
import { memberRoutes } from './members';
import { metricsRoutes, withSpanHooks } from './metrics';
import { modelRoutes } from './models';
import { orgRoutes } from './orgs';
import { reportRoutes } from './reports';
import { teamRoutes } from './teams';
import { findingRoutes } from './findings';
import { ruleHealthRoutes } from './rule-health';
import { reviewWebhookRoutes } from './review-webhook';
import { customRuleRoutes } from './custom-rules';
import { reportTemplateRoutes } from './report-templates';
import { usageRoutes } from './usage';

/**
 * Every API route, in mount order: fixed paths first, then the `/{namespace}/...` and
 * `/{analyzer}/...` patterns (whose first segment is a parameter).
 */
export function allRoutes(services: ServerServices): RouteDef[] {
  return withSpanHooks([
    ...healthRoutes(),
    // identity-api.md: fixed first segments (auth, orgs, invite, metrics, admin).
    ...authRoutes(services),
    ...keyRoutes(),
    ...orgRoutes(services),
    ...memberRoutes(),
    ...teamRoutes(),
    ...inviteRoutes(services),
    ...metricsRoutes(),
    ...adminRoutes(),
    ...modelRoutes(),
    // analysis-api.md issue 4: findings, feedback, rule health, custom rules, templates, usage (fixed paths).
    ...findingRoutes(),
    ...ruleHealthRoutes(services),
    ...reviewWebhookRoutes(),
    ...customRuleRoutes(),
    ...reportTemplateRoutes(),
    ...usageRoutes(services),
    ...analyzeRoutes(services),
    ...ingestRoutes(),
    ...reportRoutes(services),
    ...analyzerRoutes(),
  ]);
}
