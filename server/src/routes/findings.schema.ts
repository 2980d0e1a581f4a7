import { z } from 'zod';
import { SeveritySchema } from '@planwarden/engine/core/payload';
import { FINDING_STATUSES, type FindingStatus } from '@planwarden/engine/findings/finding-store';
import { FEEDBACK_SOURCES, VERDICTS, type FeedbackSource, type Verdict } from '@planwarden/engine/findings/feedback-store';
import { PROPOSAL_STATUSES, type ProposalStatus } from '@planwarden/engine/findings/proposal-store';
import { pageQuery } from './shared';

export { UpdateFindingSchema } from '@planwarden/engine/findings/finding-service';
export { PostFeedbackSchema } from '@planwarden/engine/findings/feedback-service';

/** GET /findings query (analysis-api.md "Findings and review feedback"; `namespace` is our addition). */
export const FindingsQuerySchema = z.object({
  status: z.enum(FINDING_STATUSES as [FindingStatus, ...FindingStatus[]]).optional(),
  severity: SeveritySchema.optional(),
  rule_id: z.string().min(1).optional(),
  namespace: z.string().min(1).optional(),
  ...pageQuery(1000, 100),
});

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
