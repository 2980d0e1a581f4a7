import { JobStore, JOB_INDEXES } from './analysis/job-store';
import { ResourceStore, RESOURCE_INDEXES } from './ingest/resource-store';
import { FindingStore, FINDING_INDEXES } from './findings/finding-store';
import { LlmCredentialStore, CREDENTIAL_INDEXES } from './llm/credential-store';
import { ModelStore, MODEL_INDEXES } from './llm/model-store';
import type { SecretBox } from './llm/secret-box';
import type { Stores } from './context/engine-context';
import { OrgStore, ORG_INDEXES } from './orgs/org-store';
import type { IndexSpec, Store } from './store/port';
import { LlmCallStore, LLM_CALL_INDEXES } from './usage/llm-call-store';
import { AuditStore, AUDIT_INDEXES } from './audit/audit-store';
import { ApiKeyStore, API_KEY_INDEXES } from './identity/key-store';
import { InviteStore, INVITE_INDEXES } from './identity/invite-store';
import { MembershipStore, MEMBERSHIP_INDEXES } from './identity/membership-store';
import { TeamStore, TEAM_INDEXES } from './identity/team-store';
import { UserStore, USER_INDEXES } from './identity/user-store';
import { AuthThrottleStore, THROTTLE_INDEXES } from './identity/throttle-store';
import { RevokedTokenStore, REVOKED_TOKEN_INDEXES } from './identity/revoked-token-store';
import { SpanStore, SPAN_INDEXES } from './telemetry/span-store';
import { FeedbackStore, FEEDBACK_INDEXES } from './findings/feedback-store';
import { ProposalStore, PROPOSAL_INDEXES } from './findings/proposal-store';
import { CustomRuleStore, CUSTOM_RULE_INDEXES } from './custom-rules/custom-rule-store';
import { ReviewWebhookStore, REVIEW_WEBHOOK_INDEXES } from './notify/review-webhook-store';
import { ReportTemplateStore, TEMPLATE_INDEXES } from './report/template-store';
import { ReportLinkStore, REPORT_LINK_INDEXES } from './report/report-link-store';
import { RunTaskConfigStore, RUN_TASK_INDEXES } from './integrations/run-task-store';
import { CodehostStore, CODEHOST_INDEXES } from './codehost/codehost-store';
import { ChannelStore, CHANNEL_INDEXES } from './notify/channel-store';
import { SsoStore, SSO_INDEXES } from './identity/sso-store';
import { ScimStore, SCIM_INDEXES } from './identity/scim-store';
import { SocialIdentityStore, SOCIAL_INDEXES } from './identity/social-store';
import { SuppressionStore, SUPPRESSION_INDEXES } from './findings/suppression-store';

const ALL_INDEXES: Record<string, IndexSpec[]>[] = [
  ORG_INDEXES,
  RESOURCE_INDEXES,
  FINDING_INDEXES,
  JOB_INDEXES,
  LLM_CALL_INDEXES,
  CREDENTIAL_INDEXES,
  MODEL_INDEXES,
  USER_INDEXES,
  MEMBERSHIP_INDEXES,
  API_KEY_INDEXES,
  INVITE_INDEXES,
  TEAM_INDEXES,
  AUDIT_INDEXES,
  SPAN_INDEXES,
  FEEDBACK_INDEXES,
  PROPOSAL_INDEXES,
  CUSTOM_RULE_INDEXES,
  REVIEW_WEBHOOK_INDEXES,
  TEMPLATE_INDEXES,
  REPORT_LINK_INDEXES,
  THROTTLE_INDEXES,
  REVOKED_TOKEN_INDEXES,
  RUN_TASK_INDEXES,
  CODEHOST_INDEXES,
  CHANNEL_INDEXES,
  SSO_INDEXES,
  SCIM_INDEXES,
  SOCIAL_INDEXES,
  SUPPRESSION_INDEXES,
];

/** The name of every collection the schema declares (the org purge walks them all). */
export function schemaCollections(extra: Record<string, IndexSpec[]>[] = []): string[] {
  return [...new Set([...ALL_INDEXES, ...extra].flatMap((group) => Object.keys(group)))];
}

/** Every collection the schema declares with its index specs (the migration reads the unique keys). */
export function schemaIndexes(extra: Record<string, IndexSpec[]>[] = []): Map<string, IndexSpec[]> {
  const out = new Map<string, IndexSpec[]>();
  for (const group of [...ALL_INDEXES, ...extra]) for (const [name, specs] of Object.entries(group)) out.set(name, [...(out.get(name) ?? []), ...specs]);
  return out;
}

/** A store that prepares many collections in one step (the SQLite adapter: one transaction). */
interface BatchSchemaStore extends Store {
  ensureIndexesBatch(schema: ReadonlyMap<string, readonly IndexSpec[]>): Promise<void>;
}

function batchesSchema(store: Store): store is BatchSchemaStore {
  return typeof (store as Partial<BatchSchemaStore>).ensureIndexesBatch === 'function';
}

/**
 * Creates every collection's indexes (idempotent; run at startup and by storage preparation);
 * returns how many collections. On the SQLite adapter it is one transaction for the whole
 * schema (start-up time on a fresh data folder); other stores get one ensureIndexes call
 * per collection. Errors: ConflictError when a unique index meets existing duplicates.
 */
export async function ensureSchema(store: Store, extra: Record<string, IndexSpec[]>[] = []): Promise<number> {
  const entries: [string, IndexSpec[]][] = [];
  for (const group of [...ALL_INDEXES, ...extra]) entries.push(...Object.entries(group));
  if (batchesSchema(store)) {
    // A collection named in two groups keeps one call per group, in order, as below.
    const batch = new Map<string, IndexSpec[]>();
    for (const [name, indexes] of entries) {
      if (batch.has(name)) {
        await store.ensureIndexesBatch(batch);
        batch.clear();
      }
      batch.set(name, indexes);
    }
    await store.ensureIndexesBatch(batch);
    return entries.length;
  }
  for (const [name, indexes] of entries) await store.ensureIndexes(name, indexes);
  return entries.length;
}

export function createStores(store: Store, box: SecretBox): Stores {
  return {
    store,
    orgs: new OrgStore(store),
    resources: new ResourceStore(store),
    findings: new FindingStore(store),
    jobs: new JobStore(store),
    llmCalls: new LlmCallStore(store),
    credentials: new LlmCredentialStore(store, box),
    models: new ModelStore(store),
    users: new UserStore(store),
    memberships: new MembershipStore(store),
    apiKeys: new ApiKeyStore(store),
    invites: new InviteStore(store),
    teams: new TeamStore(store),
    audit: new AuditStore(store),
    spans: new SpanStore(store),
    feedback: new FeedbackStore(store),
    proposals: new ProposalStore(store),
    customRules: new CustomRuleStore(store),
    reviewWebhooks: new ReviewWebhookStore(store),
    templates: new ReportTemplateStore(store),
    reportLinks: new ReportLinkStore(store),
    runTasks: new RunTaskConfigStore(store),
    codehost: new CodehostStore(store),
    channels: new ChannelStore(store),
    throttle: new AuthThrottleStore(store),
    revokedTokens: new RevokedTokenStore(store),
    sso: new SsoStore(store),
    scim: new ScimStore(store),
    socialIdentities: new SocialIdentityStore(store),
    suppressions: new SuppressionStore(store),
    box,
  };
}
