import type { RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { adminRoutes } from './admin';
import { adminCustomRuleRoutes } from './admin-custom-rules';
import { adminModelRoutes } from './admin-models';
import { adminPlatformRoutes } from './admin-platform';
import { adminSettingsRoutes } from './admin-settings';
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
import { planViewRoutes } from './plan-view';
import { teamRoutes } from './teams';
import { findingRoutes } from './findings';
import { ruleHealthRoutes } from './rule-health';
import { reviewWebhookRoutes } from './review-webhook';
import { runTaskRoutes } from './run-tasks';
import { codehostRoutes } from './codehost';
import { notificationRoutes } from './notifications';
import { customRuleRoutes } from './custom-rules';
import { reportTemplateRoutes } from './report-templates';
import { reportLinkRoutes } from './report-links';
import { usageRoutes } from './usage';
import { ssoRoutes } from './sso';
import { scimConfigRoutes } from './scim';
import { scimProtocolRoutes } from './scim-protocol';
import { socialRoutes } from './social';

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
    // identity-api.md "Single sign-on".
    ...ssoRoutes(services),
    ...scimConfigRoutes(services),
    ...scimProtocolRoutes(services),
    ...socialRoutes(services),
    ...metricsRoutes(),
    ...adminRoutes(),
    // identity-api.md platform settings and administration, analysis-api.md /admin/models.
    ...adminSettingsRoutes(services.settings),
    ...adminPlatformRoutes(services),
    ...adminModelRoutes(),
    ...adminCustomRuleRoutes(),
    ...modelRoutes(),
    // analysis-api.md: findings, feedback, rule health, custom rules, templates, usage (fixed paths).
    ...findingRoutes(services),
    ...ruleHealthRoutes(services),
    ...reviewWebhookRoutes(),
    ...runTaskRoutes(services),
    // analysis-api.md "Code-hosting integration", "Notification channels".
    ...codehostRoutes(services),
    ...notificationRoutes(),
    ...customRuleRoutes(),
    ...reportTemplateRoutes(),
    ...reportLinkRoutes(),
    ...usageRoutes(services),
    ...analyzeRoutes(services),
    ...ingestRoutes(),
    ...reportRoutes(services),
    ...planViewRoutes(),
    ...analyzerRoutes(),
  ]);
}
