import { z } from 'zod';
import { SeveritySchema } from '@planwarden/engine/core/payload';
import { FINDING_STATUSES, type FindingStatus } from '@planwarden/engine/findings/finding-store';
import { FEEDBACK_SOURCES, VERDICTS, type FeedbackSource, type Verdict } from '@planwarden/engine/findings/feedback-store';
import { PROPOSAL_STATUSES, type ProposalStatus } from '@planwarden/engine/findings/proposal-store';
import { DETECTIONS } from '@planwarden/engine/findings/run-detection';
import { booleanQuery, pageQuery } from './shared';

export { UpdateFindingSchema } from '@planwarden/engine/findings/finding-service';
export { TriageFindingSchema } from '@planwarden/engine/findings/suppression-expiry';
export { PostFeedbackSchema } from '@planwarden/engine/findings/feedback-service';
export { ResolveNoLongerDetectedSchema } from '@planwarden/engine/findings/resolve-no-longer-detected';

/** At most this many `namespace` parameters in one GET /findings. */
export const MAX_NAMESPACE_FILTERS = 50;

/**
 * GET /findings filters (analysis-api.md "Findings and review feedback"), shared with MCP. Our
 * addition: `namespace` (repeat it for several: a finding of any of them; docs/decisions.md
 * "Several namespaces").
 */
export const FindingsQuerySchema = z.object({
  status: z.enum(FINDING_STATUSES as [FindingStatus, ...FindingStatus[]]).optional(),
  severity: SeveritySchema.optional(),
  rule_id: z.string().min(1).optional(),
  namespace: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_NAMESPACE_FILTERS)]).optional(),
  // With exactly one namespace: its findings in one run-detection state (docs/decisions.md "Runs compared").
  detection: z.enum(DETECTIONS).optional(),
  ...pageQuery(1000, 100),
});

/** GET /findings over HTTP: the filters plus `include_namespaces` (records gain `namespaces`). */
export const FindingsListQuerySchema = FindingsQuerySchema.extend({ include_namespaces: booleanQuery.optional() });

/** GET /findings/namespaces query (our addition: the riskiest namespaces). */
export const NamespaceRiskQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(100).default(5) });

/** GET /findings/summary query. */
export const SummaryQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(365).default(30) });

/** GET /feedback query. */
export const FeedbackQuerySchema = z.object({
  rule_id: z.string().min(1).optional(),
  verdict: z.enum(VERDICTS as [Verdict, ...Verdict[]]).optional(),
  source: z.enum(FEEDBACK_SOURCES as [FeedbackSource, ...FeedbackSource[]]).optional(),
  resource_hash: z.string().min(1).optional(),
  ...pageQuery(1000, 100),
});

/** GET /rule-proposals query. */
export const ProposalsQuerySchema = z.object({
  status: z.enum(PROPOSAL_STATUSES as [ProposalStatus, ...ProposalStatus[]]).optional(),
});
