/**
 * Request and response shapes of the /api/v1 routes the dashboard calls, derived (type-only,
 * erased from the bundle) from the server's zod schemas (server/src/routes/*.schema.ts) and the
 * engine's presenters, so they have one source and are never re-typed by hand.
 */
import type { z } from 'zod';
import type { FindingsQuerySchema, TriageFindingSchema, UpdateFindingSchema } from '../../../../server/src/routes/findings.schema';
import type { listFindingsWithNamespaces, riskiestNamespaces } from '@planwarden/engine/findings/finding-namespaces';
import type { getFinding } from '@planwarden/engine/findings/suppression-expiry';
import type {
  CreateKeySchema,
  CreateOrgSchema,
  LoginSchema,
  RegisterSchema,
  SecondFactorSchema,
  CreateInviteSchema,
  AddMemberSchema,
} from '../../../../server/src/routes/identity.schema';
import type { CreateCustomRuleSchema, UpdateCustomRuleSchema } from '../../../../server/src/routes/custom-rules.schema';
import type { SessionResult } from '../../../../server/src/auth/account-service';
import type { AnalyzeRequestSchema } from '@planwarden/engine/analysis/analyze-service';
import type { presentFinding, findingsSummary } from '@planwarden/engine/findings/finding-service';
import type { presentFeedback } from '@planwarden/engine/findings/feedback-service';
import type { presentProposal } from '@planwarden/engine/findings/proposal-service';
import type { ruleHealth } from '@planwarden/engine/findings/rule-health';
import type { presentJob, presentJobListItem } from '@planwarden/engine/analysis/job-service';
import type { presentResource } from '@planwarden/engine/analysis/resource-service';
import type { presentKey, createApiKey } from '@planwarden/engine/identity/key-service';
import type { presentOrgInfo } from '@planwarden/engine/identity/org-service';
import type { MemberEntry } from '@planwarden/engine/identity/member-service';
import type { presentInvite } from '@planwarden/engine/identity/invite-service';
import type { presentAuditEvent } from '@planwarden/engine/audit/record';
import type { presentCustomRule } from '@planwarden/engine/custom-rules/custom-rule-service';
import type { usageDocument } from '@planwarden/engine/usage/usage-service';
import type { Severity } from '@planwarden/engine/core/payload';
import type { FindingStatus } from '@planwarden/engine/findings/finding-store';
import type { ReasonCode } from '@planwarden/engine/findings/feedback-store';
import type { OrgRole } from '@planwarden/engine/identity/types';

export type { Severity, FindingStatus, ReasonCode, OrgRole };

/** POST /auth/session, /auth/register, GET /auth/me … (identity-api.md "Session identity"). */
export type SessionIdentity = SessionResult['body'];
export type MfaChallenge = { mfa_token: string; methods: string[] };
export type LoginBody = z.input<typeof LoginSchema>;
export type SecondFactorBody = z.input<typeof SecondFactorSchema>;
export type RegisterBody = z.input<typeof RegisterSchema>;
export type CreateOrgBody = z.input<typeof CreateOrgSchema>;
export type CreateKeyBody = z.input<typeof CreateKeySchema>;
export type CreateInviteBody = z.input<typeof CreateInviteSchema>;
export type AddMemberBody = z.input<typeof AddMemberSchema>;

export type Finding = ReturnType<typeof presentFinding>;
export type FindingsQuery = z.input<typeof FindingsQuerySchema>;
export type FindingsSummary = Awaited<ReturnType<typeof findingsSummary>>;
export type UpdateFindingBody = z.input<typeof UpdateFindingSchema>;
/** GET /findings?include_namespaces=true rows; GET /findings/{hash}/{rule}; PATCH with `expires_at`; GET /findings/namespaces. */
export type FindingRow = Awaited<ReturnType<typeof listFindingsWithNamespaces>>['findings'][number];
export type FindingRecord = Awaited<ReturnType<typeof getFinding>>;
export type TriageBody = z.input<typeof TriageFindingSchema>;
export type NamespaceRiskList = Awaited<ReturnType<typeof riskiestNamespaces>>;
export type Feedback = ReturnType<typeof presentFeedback>;
export type Proposal = ReturnType<typeof presentProposal>;
export type RuleHealth = Awaited<ReturnType<typeof ruleHealth>>;

export type Job = ReturnType<typeof presentJob>;
export type JobListItem = ReturnType<typeof presentJobListItem>;
export type AnalyzeBody = z.input<typeof AnalyzeRequestSchema>;
export type StoredResource = ReturnType<typeof presentResource>;

export type ApiKey = ReturnType<typeof presentKey>;
export type CreatedKey = Awaited<ReturnType<typeof createApiKey>>;
export type OrgInfo = ReturnType<typeof presentOrgInfo>;
export type Member = MemberEntry;
export type Invite = ReturnType<typeof presentInvite>;
export type AuditEvent = ReturnType<typeof presentAuditEvent>;
export type CustomRule = ReturnType<typeof presentCustomRule>;
export type CreateRuleBody = z.input<typeof CreateCustomRuleSchema>;
export type UpdateRuleBody = z.input<typeof UpdateCustomRuleSchema>;
export type Usage = Awaited<ReturnType<typeof usageDocument>>;

/** Values the dashboard offers in selects (the schemas' enums, repeated as runtime lists). */
export const SEVERITIES: readonly Severity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'];
export const STATUSES: readonly FindingStatus[] = ['open', 'needs_review', 'acknowledged', 'suppressed', 'false_positive'];
export const REASONS: readonly ReasonCode[] = ['false_positive', 'accepted_risk', 'fixed', 'not_applicable_here', 'other'];
export const ROLES: readonly OrgRole[] = ['viewer', 'member', 'admin', 'owner'];

import type { listNamespaces } from '@planwarden/engine/analysis/resource-service';
/** GET /namespaces. */
export type NamespaceEntry = Awaited<ReturnType<typeof listNamespaces>>[number];

import type { presentModel } from '../../../../server/src/routes/models';
/** GET /models rows. */
export type AllowedModel = ReturnType<typeof presentModel>;
export type { LlmBackend } from '@planwarden/engine/llm/types';
export const BACKENDS = ['openai', 'anthropic', 'ollama'] as const;

import type { listOrgSummaries } from '@planwarden/engine/identity/admin-org-service';
import type { presentTemplate } from '@planwarden/engine/report/template-service';
/** GET /admin/organizations rows. */
export type OrgSummary = Awaited<ReturnType<typeof listOrgSummaries>>[number];
export type ReportTemplate = ReturnType<typeof presentTemplate>;

import type { CodehostConfigSchema, presentIntegration } from '@planwarden/engine/codehost/integration-service';
import type { createManifest } from '@planwarden/engine/codehost/manifest';
/** analysis-api.md "Code-hosting integration": GET/POST /orgs/{org_id}/integrations/codehost and …/manifest. */
export type CodehostConfig = ReturnType<typeof presentIntegration>;
export type CodehostConfigBody = z.input<typeof CodehostConfigSchema>;
export type CodehostManifest = Awaited<ReturnType<typeof createManifest>>;
/** POST /orgs/{org_id}/integrations/codehost/install-link (docs/decisions.md "Installation binding"). */
export interface CodehostInstallLink {
  install_url: string;
  expires_at: string;
}

import type { SettingsService } from '../../../../server/src/config/settings-service';
/** identity-api.md "Platform settings document": GET/PATCH /admin/settings. */
export type SettingsDocument = ReturnType<SettingsService['document']>;

import type { SsoConnectionSchema, SsoConnectionPatchSchema } from '../../../../server/src/routes/sso.schema';
import type { presentSsoConnection } from '@planwarden/engine/identity/sso-service';
/** identity-api.md "Single sign-on": /orgs/{org_id}/sso. */
export type SsoConnection = ReturnType<typeof presentSsoConnection>;
export type SsoBody = z.input<typeof SsoConnectionSchema>;
export type SsoPatchBody = z.input<typeof SsoConnectionPatchSchema>;

import type { ScimConfigSchema, ScimConfigPatchSchema } from '../../../../server/src/routes/scim.schema';
import type { presentScimConfig } from '@planwarden/engine/identity/scim-config-service';
/** identity-api.md "SCIM": /orgs/{org_id}/scim. */
export type ScimConfig = ReturnType<typeof presentScimConfig>;
export type ScimBody = z.input<typeof ScimConfigSchema>;
export type ScimPatchBody = z.input<typeof ScimConfigPatchSchema>;

import type { CreateChannelSchema, UpdateChannelSchema, presentChannel, testChannel } from '@planwarden/engine/notify/channel-service';
import type { EventDescriptor } from '@planwarden/engine/notify/events';
/** analysis-api.md "Notification channels". */
export type Channel = ReturnType<typeof presentChannel>;
export type CreateChannelBody = z.input<typeof CreateChannelSchema>;
export type UpdateChannelBody = z.input<typeof UpdateChannelSchema>;
export type ChannelTestResult = Awaited<ReturnType<typeof testChannel>>;
export type NotificationEvent = EventDescriptor;

import type { RunTaskConfigSchema } from '../../../../server/src/routes/run-tasks.schema';
import type { presentRunTask } from '@planwarden/engine/integrations/run-task-config';
/** docs/decisions.md "Run tasks": /orgs/{org_id}/integrations/run-task. */
export type RunTaskConfig = ReturnType<typeof presentRunTask>;
export type RunTaskBody = z.input<typeof RunTaskConfigSchema>;

import type { AdminUserPatchSchema } from '../../../../server/src/routes/identity.schema';
/** identity-api.md "Platform administration": PATCH /admin/users/{user_id}. */
export type AdminUserPatchBody = z.input<typeof AdminUserPatchSchema>;

import type { presentReportLink } from '@planwarden/engine/report/report-link-service';
/** GET /orgs/{org_id}/report-links (extension: docs/decisions.md "Public report links: list and revoke"). */
export type ReportLink = ReturnType<typeof presentReportLink>;
