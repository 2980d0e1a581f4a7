import type { AnalysisUnit, UnitAction } from '../core/unit';
import type { EngineContext } from '../context/engine-context';
import { AppError } from '../core/errors';
import { analyseUnit, UnitAnalysisError } from '../llm/analyse-unit';
import type { LlmProvider } from '../llm/types';
import type { AnalysisPayload } from '../core/payload';
import type { JobDoc } from './job-store';
import type { ResourceDoc } from '../ingest/resource-store';
import { calibrationText, DEFAULT_RULE_HEALTH_SETTINGS, type RuleHealthSettings } from '../findings/rule-health';
import { analysisDigest, saveAnalysis } from './resource-service';
import { meterUnitCalls } from '../usage/meter-unit';
import { resolveRuleset, resourceRuleset, unitRuleVariant, type ResolvedRuleset } from './ruleset-service';
import { factsText, runChecks } from '../checks/run-checks';
import { checksOnlyDigest, deterministicPayload, mergeFindings } from '../checks/merge';
import { requiresReviewRuleIds } from '../custom-rules/custom-rule-service';

export interface RunSettings {
  readonly max_concurrent_units: number;
  readonly llm_timeout_seconds: number;
  readonly llm_max_attempts: number;
  readonly llm_retry_backoff_seconds: number;
  readonly llm_max_output_tokens: number;
  /** Rule health settings of the calibration loop (findings/rule-health.ts); default DEFAULT_RULE_HEALTH_SETTINGS. */
  readonly rule_health?: RuleHealthSettings;
}

export interface RunJobOptions {
  /** null = no model: only the rules' deterministic checks run (docs/decisions.md "Checks only"). */
  readonly provider: LlmProvider | null;
  readonly pricing: { input_price_per_1m_usd: number; output_price_per_1m_usd: number };
  readonly settings: RunSettings;
  /** Checked before each unit is started; true stops the run after the units in flight (cancellation, lost lease). */
  readonly shouldStop?: () => Promise<boolean>;
  /** Checked before each unit is started; true ends the run as done with quota_exceeded (monthly cap). */
  readonly budgetExhausted?: () => Promise<boolean>;
  /** Injected for tests (backoff). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

type Outcome = { kind: 'ok' } | { kind: 'failed'; message: string };

/**
 * Runs the analysis loop of one job (analysis-api.md "Job status"): every resource of
 * `job.hashes` not yet analysed with the current ruleset and plan-context digest
 * (resource-service.ts analysisDigest) is sent to the model, at most
 * `max_concurrent_units` at a time; each success is stored with its triage records and
 * reported as progress (processed_count, current_resource); each call is metered, and a
 * unit at most once per job (usage/meter-unit.ts).
 *
 * Ends the job `done` (all processed, or quota_exceeded), `failed` (a unit failed after its
 * attempts: `error` holds the provider's message) or leaves it as the canceller set it.
 * Returns the job as stored at the end. Never throws for a unit's failure.
 */
export async function runJob(ctx: EngineContext, job: JobDoc, options: RunJobOptions): Promise<JobDoc> {
  const { stores } = ctx;
  const orgId = job.org_id;
  const started = await stores.jobs.transition(orgId, job.job_id, ['queued', 'running'], {
    // A resumed run walks every hash again (analysed ones are skipped but counted), so progress restarts at 0.
    status: 'running',
    updated_at: ctx.now().toISOString(),
    total_count: job.hashes.length,
    processed_count: 0,
  });
  if (!started) return (await stores.jobs.get(orgId, job.job_id)) ?? job;

  const resources = await stores.resources.getMany(orgId, job.hashes);
  const byHash = new Map(resources.map((r) => [r.hash, r]));
  const queue = job.hashes.map((h) => byHash.get(h)).filter((r): r is ResourceDoc => Boolean(r));
  const rulesets = new Map<string, Promise<ResolvedRuleset>>();
  // Trusted reviewer verdicts on calibrating rules, computed once per run (docs/decisions.md "calibration").
  const calibration = await calibrationText(ctx, orgId, options.settings.rule_health ?? DEFAULT_RULE_HEALTH_SETTINGS);
  // The org's requires_review rules, read once per run like the rulesets (not per unit; docs/decisions.md "Job runner costs").
  let reviewRules: Promise<ReadonlySet<string>> | null = null;
  const save = async (resource: ResourceDoc, payload: AnalysisPayload, digest: string) =>
    saveAnalysis(ctx, orgId, resource, payload, 'server', digest, await (reviewRules ??= requiresReviewRuleIds(ctx, orgId)));
  const rulesetFor = (resource: ResourceDoc): Promise<ResolvedRuleset> => {
    const analyzer = ctx.analyzers.get(resource.analyzer);
    if (!analyzer) return Promise.reject(new AppError(404, `Unknown analyzer '${resource.analyzer}'`));
    const variant = unitRuleVariant(analyzer, resource, job.analyzer === 'auto' ? null : job.rule_type);
    const key = `${analyzer.name}\u0000${variant ?? ''}`;
    if (!rulesets.has(key)) rulesets.set(key, resolveRuleset(ctx, orgId, analyzer, variant));
    return rulesets.get(key)!;
  };

  let processed = 0;
  let failure: string | null = null;
  let quotaExceeded = false;
  let stopped = false;
  let progressChain: Promise<unknown> = Promise.resolve();
  const reportProgress = (resource: ResourceDoc) => {
    processed += 1;
    const snapshot = {
      processed_count: processed,
      current_resource: { hash: resource.hash, resource_address: resource.value.name, type: resource.value.type },
    };
    progressChain = progressChain.then(() => stores.jobs.progress(orgId, job.job_id, snapshot, ctx.now().toISOString()));
    return progressChain;
  };

  const analyseOne = async (resource: ResourceDoc): Promise<Outcome> => {
    let ruleset: ReturnType<typeof resourceRuleset>;
    try {
      // Only the rules that apply to this unit are sent, and their digest is what is recorded.
      ruleset = resourceRuleset(await rulesetFor(resource), resource);
    } catch (error) {
      return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
    // The unit's plan context is part of the key: changed companions mean a new analysis.
    const digest = analysisDigest(options.provider ? ruleset.digest : checksOnlyDigest(ruleset.digest), resource.metadata);
    if (resource.analysis && resource.ruleset_digest === digest) {
      await reportProgress(resource);
      return { kind: 'ok' };
    }
    const unit = toUnit(resource);
    // Deterministic checks first: proven findings without a model, and known facts for it.
    const matches = runChecks(ruleset.rules, unit);
    if (!options.provider) {
      const checked = ruleset.rules.filter((r) => r.check !== null).length;
      await save(resource, deterministicPayload(matches, unit, checked), digest);
      await reportProgress(resource);
      return { kind: 'ok' };
    }
    const s = options.settings;
    try {
      const { payload: modelPayload, calls } = await analyseUnit(options.provider, {
        model: job.model,
        rules: ruleset.text,
        ruleIds: ruleset.rules.map((r) => r.rule_id),
        facts: factsText(matches),
        calibration: calibration === '' ? undefined : calibration,
        unit,
        settings: {
          maxAttempts: s.llm_max_attempts,
          backoffSeconds: s.llm_retry_backoff_seconds,
          timeoutSeconds: s.llm_timeout_seconds,
          maxOutputTokens: s.llm_max_output_tokens,
        },
        sleep: options.sleep,
        random: options.random,
      });
      // Metered before saving: a crash in between re-analyses the unit on resume, and
      // meterUnitCalls then bills it no second time.
      await meterUnitCalls(ctx, job, resource.hash, calls, options.pricing);
      await save(resource, mergeFindings(modelPayload, matches, unit), digest);
      await reportProgress(resource);
      return { kind: 'ok' };
    } catch (error) {
      if (error instanceof UnitAnalysisError) {
        await meterUnitCalls(ctx, job, resource.hash, error.calls, options.pricing);
        return { kind: 'failed', message: error.message };
      }
      throw error;
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < queue.length && failure === null && !stopped && !quotaExceeded) {
      if (options.shouldStop && (await options.shouldStop())) {
        stopped = true;
        break;
      }
      if (options.budgetExhausted && (await options.budgetExhausted())) {
        quotaExceeded = true;
        break;
      }
      if (next >= queue.length || failure !== null) break;
      const resource = queue[next];
      next += 1;
      const outcome = await analyseOne(resource);
      if (outcome.kind === 'failed' && failure === null) failure = outcome.message;
    }
  };
  const width = Math.max(1, Math.min(options.settings.max_concurrent_units, queue.length || 1));
  await Promise.all(Array.from({ length: width }, worker));
  await progressChain;

  const now = ctx.now().toISOString();
  let final: JobDoc | null = null;
  if (failure !== null) {
    final = await stores.jobs.transition(orgId, job.job_id, ['running'], { status: 'failed', error: failure, finished_at: now, updated_at: now });
  } else if (quotaExceeded) {
    final = await stores.jobs.transition(orgId, job.job_id, ['running'], { status: 'done', quota_exceeded: true, finished_at: now, updated_at: now });
  } else if (!stopped) {
    final = await stores.jobs.transition(orgId, job.job_id, ['running'], { status: 'done', finished_at: now, updated_at: now });
  }
  return final ?? (await stores.jobs.get(orgId, job.job_id)) ?? job;
}

function toUnit(resource: ResourceDoc): AnalysisUnit {
  return {
    hash: resource.hash,
    type: resource.value.type,
    name: resource.value.name,
    action: resource.value.action as UnitAction,
    body: resource.value.body,
    metadata: resource.metadata,
  };
}
