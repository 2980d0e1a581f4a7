import { SEVERITY_ORDER, type Severity } from '../core/payload';
import type { EngineContext } from '../context/engine-context';
import { ConflictError, NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import { presentCustomRule } from '../custom-rules/custom-rule-service';
import { nextTurn } from '../ingest/timed-batches';
import { verdictTallies, type VerdictTally } from './feedback-counts';
import { sortableId } from './ids';
import type { ProposalChanges, ProposalDoc, ProposalEvidence, ProposalStatus } from './proposal-store';
import { precisionOf, quote, ruleCatalog, type RuleHealthSettings } from './rule-health';

/**
 * Rule proposals (analysis-api.md "Rule proposal", "Rule proposal status"): computed from the
 * feedback (its counters and the rules' newest entries) without any LLM call, decided by an admin.
 */

/** Precision below which a rule gets a description amendment proposed. */
export const PROPOSAL_PRECISION_THRESHOLD = 0.5;

/** analysis-api.md "Rule proposal" presenter. */
export function presentProposal(p: ProposalDoc) {
  return {
    proposal_id: p.proposal_id,
    rule_id: p.rule_id,
    status: p.status,
    changes: p.changes,
    evidence: p.evidence,
    reviewer_quotes: p.reviewer_quotes,
    created_at: p.created_at,
    updated_at: p.updated_at,
    decided_at: p.decided_at,
    decided_by: p.decided_by,
  };
}

/** QUOTES_PER_PROPOSAL newest rejections with a comment are quoted in a proposal. */
const QUOTES_PER_PROPOSAL = 5;

/**
 * The change a rule's counted feedback supports (`supported` false: none), with its evidence and
 * the quotes of its newest rejections. The counts come from the org's verdict counters
 * (feedback-counts.ts `tally`, undefined: no counted entry); the quotes and, for a rule the
 * catalogue no longer knows, the severity named by its newest counted entry, from indexed reads
 * of the rule's newest entries: never the whole log.
 */
async function proposeFor(
  ctx: EngineContext,
  orgId: string,
  ruleId: string,
  info: { title: string; severity: Severity } | undefined,
  tally: VerdictTally | undefined,
  settings: RuleHealthSettings,
) {
  const { confirmed = 0, rejected = 0, severity_wrong: severityWrong = 0, unclear = 0, total = 0, last = null } = tally ?? {};
  const precision = precisionOf(confirmed, rejected, settings.min_samples);
  const evidence: ProposalEvidence = {
    confirmed,
    rejected,
    severity_wrong: severityWrong,
    unclear,
    total,
    precision,
    min_samples: settings.min_samples,
    feedback_through: last ?? '',
  };
  const trustedOnly = settings.trusted_only;
  const title = info?.title ?? ruleId;
  const severity = info?.severity ?? (tally ? ((await ctx.stores.feedback.newest(orgId, ruleId, trustedOnly))?.severity ?? 'INFO') : 'INFO');
  const amend = precision !== null && precision < PROPOSAL_PRECISION_THRESHOLD;
  const lower = SEVERITY_ORDER[SEVERITY_ORDER.indexOf(severity) + 1];
  const demote = lower !== undefined && severityWrong >= settings.min_samples && severityWrong > confirmed;
  if (!amend && !demote) return { changes: {}, evidence, quotes: [], supported: false };
  const rejections = await ctx.stores.feedback.newestCommented(orgId, ruleId, trustedOnly, QUOTES_PER_PROPOSAL, 'rejected');
  const quotes = [...new Set(rejections.map((f) => quote(f.comment)))];
  const changes: ProposalChanges = {};
  if (amend) {
    const notes = quotes.length > 0 ? ` Reviewers rejected findings of this rule for these reasons:\n${quotes.map((q) => `- ${q}`).join('\n')}` : '';
    changes.description_amendment = `Reviewer calibration for ${ruleId} (${title}): reviewers rejected ${rejected} of ${confirmed + rejected} findings (precision ${precision.toFixed(2)}). Report this rule only when the evidence in the unit proves the problem.${notes}`;
  }
  if (demote) changes.severity = lower;
  return { changes, evidence, quotes, supported: true };
}

/**
 * POST /rule-proposals/refresh: recomputes proposals from the current feedback (trusted only
 * when `settings.trusted_only`). Idempotent, no LLM call. A rule's pending proposal is updated
 * in place (never duplicated) or, when the evidence no longer supports it, set `withdrawn`. A
 * new proposal is made only from feedback newer than the rule's last decided proposal.
 * The evidence is read from the org's verdict counters (feedback-counts.ts; docs/decisions.md
 * "Aggregate counters"), so a refresh costs a few indexed reads per rule with feedback, not a
 * pass over the feedback log. Returns `{created, updated, withdrawn, proposals}` (proposals =
 * those now pending).
 */
export async function refreshProposals(ctx: EngineContext, orgId: string, settings: RuleHealthSettings) {
  const tallies = verdictTallies(await ctx.stores.feedback.ruleCounts(orgId, ctx.now()), settings.trusted_only);
  const catalog = await ruleCatalog(ctx, orgId);
  const now = ctx.now().toISOString();
  const result = { created: 0, updated: 0, withdrawn: 0 };
  const ruleIds = new Set([...tallies.keys(), ...(await ctx.stores.proposals.list(orgId, 'pending')).map((p) => p.rule_id)]);
  for (const ruleId of [...ruleIds].sort()) {
    await nextTurn(); // a rule's few reads and writes at a time, however many rules have feedback
    const proposal = await proposeFor(ctx, orgId, ruleId, catalog.get(ruleId), tallies.get(ruleId), settings);
    const existing = await ctx.stores.proposals.forRule(orgId, ruleId);
    const pending = existing.find((p) => p.status === 'pending');
    if (pending) {
      if (!proposal.supported) {
        if (await ctx.stores.proposals.transition(orgId, pending.proposal_id, 'pending', { status: 'withdrawn', updated_at: now, decided_at: now }))
          result.withdrawn += 1;
      } else if (
        JSON.stringify([pending.changes, pending.evidence, pending.reviewer_quotes]) !== JSON.stringify([proposal.changes, proposal.evidence, proposal.quotes])
      ) {
        await ctx.stores.proposals.transition(orgId, pending.proposal_id, 'pending', {
          changes: proposal.changes,
          evidence: proposal.evidence,
          reviewer_quotes: proposal.quotes,
          updated_at: now,
        });
        result.updated += 1;
      }
      continue;
    }
    if (!proposal.supported) continue;
    const decidedThrough = existing
      .filter((p) => p.status !== 'pending')
      // biome-ignore lint/complexity/useMathMinMax: the latest of ISO-8601 strings; Math.max would turn them into NaN
      .reduce((m, p) => (p.evidence.feedback_through > m ? p.evidence.feedback_through : m), '');
    if (decidedThrough !== '' && proposal.evidence.feedback_through <= decidedThrough) continue;
    await ctx.stores.proposals.insert({
      org_id: orgId,
      proposal_id: sortableId('prop'),
      rule_id: ruleId,
      status: 'pending',
      changes: proposal.changes,
      evidence: proposal.evidence,
      reviewer_quotes: proposal.quotes,
      created_at: now,
      updated_at: now,
      decided_at: null,
      decided_by: null,
    });
    result.created += 1;
  }
  const proposals = (await ctx.stores.proposals.list(orgId, 'pending')).map(presentProposal);
  return { ...result, proposals };
}

/** GET /rule-proposals: newest first, optionally by status. */
export async function listProposals(ctx: EngineContext, orgId: string, status?: ProposalStatus) {
  return { proposals: (await ctx.stores.proposals.list(orgId, status)).map(presentProposal) };
}

async function pendingProposal(ctx: IdentityCtx, orgId: string, proposalId: string): Promise<ProposalDoc> {
  const proposal = await ctx.engine.stores.proposals.get(orgId, proposalId);
  if (!proposal) throw new NotFoundError(`Proposal '${proposalId}' not found`);
  if (proposal.status !== 'pending') throw new ConflictError(`Proposal '${proposalId}' is already ${proposal.status}`);
  return proposal;
}

/**
 * POST /rule-proposals/{id}/apply: edits the org's rule row (appends `description_amendment`
 * to its description, sets `severity`) and marks the proposal applied. The edited rule joins
 * the next ruleset, so its digest changes and server-side analysis re-analyses.
 * Throws NotFoundError (404: no proposal, or the rule row is gone), ConflictError (409:
 * already applied/dismissed/withdrawn, or nothing in `changes` would change the rule).
 * Audited rule.update and rule_proposal.apply. Returns the decided proposal.
 */
export async function applyProposal(ctx: IdentityCtx, orgId: string, proposalId: string) {
  const engine = ctx.engine;
  const proposal = await pendingProposal(ctx, orgId, proposalId);
  const rule = await engine.stores.customRules.get(orgId, proposal.rule_id);
  if (!rule) throw new NotFoundError(`Rule '${proposal.rule_id}' no longer exists`);
  const amendment = proposal.changes.description_amendment?.trim();
  const description = amendment && !rule.description.includes(amendment) ? `${rule.description.trimEnd()}\n\n${amendment}` : rule.description;
  const severity = proposal.changes.severity ?? rule.severity;
  if (description === rule.description && severity === rule.severity) throw new ConflictError('The proposal has no applicable change');
  const now = engine.now().toISOString();
  const decided = await engine.stores.proposals.transition(orgId, proposalId, 'pending', {
    status: 'applied',
    decided_at: now,
    decided_by: ctx.actor.userId ?? ctx.actor.keyId,
    updated_at: now,
  });
  if (!decided) throw new ConflictError(`Proposal '${proposalId}' was decided concurrently`);
  const after = await engine.stores.customRules.update(orgId, rule.rule_id, { description, severity, updated_at: now });
  await recordAudit(ctx, {
    orgId,
    action: 'rule.update',
    targetType: 'rule',
    targetId: rule.rule_id,
    before: presentCustomRule(rule),
    after: after ? presentCustomRule(after) : null,
  });
  await recordAudit(ctx, {
    orgId,
    action: 'rule_proposal.apply',
    targetType: 'rule_proposal',
    targetId: proposalId,
    before: presentProposal(proposal),
    after: presentProposal(decided),
  });
  return presentProposal(decided);
}

/** POST /rule-proposals/{id}/dismiss: rule untouched. 404 unknown, 409 not pending. Audited rule_proposal.dismiss. */
export async function dismissProposal(ctx: IdentityCtx, orgId: string, proposalId: string) {
  const proposal = await pendingProposal(ctx, orgId, proposalId);
  const now = ctx.engine.now().toISOString();
  const decided = await ctx.engine.stores.proposals.transition(orgId, proposalId, 'pending', {
    status: 'dismissed',
    decided_at: now,
    decided_by: ctx.actor.userId ?? ctx.actor.keyId,
    updated_at: now,
  });
  if (!decided) throw new ConflictError(`Proposal '${proposalId}' was decided concurrently`);
  await recordAudit(ctx, {
    orgId,
    action: 'rule_proposal.dismiss',
    targetType: 'rule_proposal',
    targetId: proposalId,
    before: presentProposal(proposal),
    after: presentProposal(decided),
  });
  return presentProposal(decided);
}
