import type { AnalysisUnit, UnitAction } from '../core/unit';
import type { EngineContext } from '../context/engine-context';
import { AppError } from '../core/errors';
import { analyseUnit, UnitAnalysisError } from '../llm/analyse-unit';
import type { LlmProvider } from '../llm/types';
import { NO_FINDINGS_RULE_ID, type AnalysisPayload } from '../core/payload';
import type { JobDoc } from './job-store';
import type { ResourceDoc } from '../ingest/resource-store';
import { calibrationText, DEFAULT_RULE_HEALTH_SETTINGS, type RuleHealthSettings } from '../findings/rule-health';
import { analysisDigest, saveAnalysis, type ServerSaveOptions } from './resource-service';
import { meterUnitCalls } from '../usage/meter-unit';
import { resolveRuleset, resourceRuleset, unitRuleVariant, type ResolvedRuleset } from './ruleset-service';
import { factsText, runChecks } from '../checks/run-checks';
import { checksOnlyDigest, deterministicPayload, mergeFindings } from '../checks/merge';
import { requiresReviewRuleIds } from '../custom-rules/custom-rule-service';
import { compareRun } from './run-comparison';
import { yieldWhenDue } from '../ingest/timed-batches';

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

/** `checks-only`: the unit's checks were stored without a model call, after another unit's model call failed. */
type Outcome = { kind: 'ok' } | { kind: 'checks-only' } | { kind: 'failed'; message: string };

/**
 * Runs the analysis loop of one job (analysis-api.md "Job status"): every resource of
 * `job.hashes` not yet analysed with the current ruleset and plan-context digest
 * (resource-service.ts analysisDigest) gets the rules' deterministic checks and is sent to the
 * model, at most `max_concurrent_units` at a time; each success is stored with its triage
 * records and reported as progress (processed_count, current_resource; stored at most every
 * PROGRESS_INTERVAL_MS, and once more when the run ends); each call is metered,
 * and a unit at most once per job (usage/meter-unit.ts).
 *
 * A unit whose model call fails keeps its checks' findings (stored with layers `model: failed`),
 * and so does every unit after it, without a model call (`model: pending`); those are not counted
 * as processed, and a retry of the job runs only their model part (docs/decisions.md "Analysis layers").
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
  // Trusted reviewer verdicts on calibrating rules, computed once per run (docs/decisions.md
  // "calibration"); only a model's prompt carries them, so a checks-only run reads none.
  const calibration = options.provider ? await calibrationText(ctx, orgId, options.settings.rule_health ?? DEFAULT_RULE_HEALTH_SETTINGS) : '';
  // The org's requires_review rules, read once per run like the rulesets (not per unit; docs/decisions.md "Job runner costs").
  let reviewRules: Promise<ReadonlySet<string>> | null = null;
  const save = async (resource: ResourceDoc, payload: AnalysisPayload, digest: string, saveOptions: ServerSaveOptions) => {
    const review = await (reviewRules ??= requiresReviewRuleIds(ctx, orgId));
    // The org's rules are read whole (here, and by the ruleset's resolution just before): a turn between the reads when due.
    await yieldWhenDue();
    return saveAnalysis(ctx, orgId, resource, payload, 'server', digest, review, saveOptions);
  };
  const rulesetFor = (resource: ResourceDoc): Promise<ResolvedRuleset> => {
    const analyzer = ctx.analyzers.get(resource.analyzer);
    if (!analyzer) return Promise.reject(new AppError(404, `Unknown analyzer '${resource.analyzer}'`));
    const variant = unitRuleVariant(analyzer, resource, job.analyzer === 'auto' ? null : job.rule_type);
    const key = `${analyzer.name}\u0000${variant ?? ''}`;
    if (!rulesets.has(key)) rulesets.set(key, resolveRuleset(ctx, orgId, analyzer, variant));
    return rulesets.get(key)!;
  };

  const refreshSeen = (resource: ResourceDoc) =>
    stores.findings.refreshSeen(
      orgId,
      resource.hash,
      resource.analysis!.findings.flatMap((f) => (f.rule_id === NO_FINDINGS_RULE_ID ? [] : [f.rule_id])),
      job.created_at,
      ctx.now().toISOString(),
    );

  let processed = 0;
  let failure: string | null = null;
  let quotaExceeded = false;
  let stopped = false;
  const progress = coalescedProgress((snapshot) => stores.jobs.progress(orgId, job.job_id, snapshot, ctx.now().toISOString()));
  const reportProgress = (resource: ResourceDoc) => {
    processed += 1;
    return progress.report({
      processed_count: processed,
      current_resource: { hash: resource.hash, resource_address: resource.value.name, type: resource.value.type },
    });
  };

  const analyseOne = async (resource: ResourceDoc): Promise<Outcome> => {
    let ruleset: ReturnType<typeof resourceRuleset>;
    try {
      // Only the rules that apply to this unit are sent, and their digest is what is recorded.
      ruleset = resourceRuleset(await rulesetFor(resource), resource);
    } catch (error) {
      return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
    await yieldWhenDue(); // a ruleset's first resolution reads and parses the org's rules in one stretch
    // The unit's plan context is part of the key: changed companions mean a new analysis.
    const checksDigest = analysisDigest(checksOnlyDigest(ruleset.digest), resource.metadata);
    const digest = options.provider ? analysisDigest(ruleset.digest, resource.metadata) : checksDigest;
    if (resource.analysis && resource.ruleset_digest === digest) {
      // The cached analysis still counts as seeing its findings (analysis-api.md "Finding record":
      // last_seen and occurrence_count move); a retry continues its original's run, so it does not.
      if (job.retry_of === null) await refreshSeen(resource);
      await reportProgress(resource);
      return { kind: 'ok' };
    }
    const unit = toUnit(resource);
    // Deterministic checks first: proven findings without a model, and known facts for it.
    const matches = runChecks(ruleset.rules, unit);
    await yieldWhenDue(); // the checks and the saves below are each one stretch of the loop at most
    const checked = ruleset.rules.filter((r) => r.check !== null).length;
    if (!options.provider) {
      await save(resource, deterministicPayload(matches, unit, checked), digest, { layers: { checks: 'done', model: 'none' } });
      await reportProgress(resource);
      return { kind: 'ok' };
    }
    // The checks' findings of this ruleset are stored already (an earlier run's model part failed):
    // only the model's part runs now (docs/decisions.md "Analysis layers").
    const checksStored = resource.ruleset_digest === checksDigest && resource.layers?.checks === 'done';
    // A model's earlier review (of an older ruleset) is not replaced by checks alone.
    const replaceable = resource.analysis === null || (resource.layers?.checks === 'done' && resource.layers.model !== 'done');
    const keepChecks = async (model: 'failed' | 'pending', message: string | null) => {
      if (!replaceable) return;
      const payload = checksOnlyPayload(deterministicPayload(matches, unit, checked), matches.length, checked, unit.name, model);
      // Stored again only to say why the review is missing; the checks' triage records exist already.
      const triage = checksStored ? { ...payload, findings: [] } : payload;
      await save(resource, payload, checksDigest, { layers: { checks: 'done', model, model_error: message }, triage });
    };
    // After a model failure the job fails, but every unit still gets its checks' findings.
    if (failure !== null) {
      await keepChecks('pending', null);
      return { kind: 'checks-only' };
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
      const merged = mergeFindings(modelPayload, matches, unit);
      // The checks' triage records exist already when their findings were stored: only the model's are new.
      const proven = new Set(matches.map((m) => m.rule.rule_id));
      const triage = checksStored ? { ...merged, findings: merged.findings.filter((f) => !proven.has(f.rule_id)) } : merged;
      await save(resource, merged, digest, { layers: { checks: 'done', model: 'done' }, triage });
      await reportProgress(resource);
      return { kind: 'ok' };
    } catch (error) {
      if (error instanceof UnitAnalysisError) {
        await meterUnitCalls(ctx, job, resource.hash, error.calls, options.pricing);
        await keepChecks('failed', error.message);
        return { kind: 'failed', message: error.message };
      }
      throw error;
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < queue.length && !stopped && !quotaExceeded) {
      if (options.shouldStop && (await options.shouldStop())) {
        stopped = true;
        break;
      }
      // No model call follows a failure, so the cap no longer applies to the checks that remain
      // (nor to a checks-only run, which makes none).
      if (failure === null && options.provider && options.budgetExhausted && (await options.budgetExhausted())) {
        quotaExceeded = true;
        break;
      }
      if (next >= queue.length) break;
      const resource = queue[next];
      next += 1;
      const outcome = await analyseOne(resource);
      if (outcome.kind === 'failed' && failure === null) failure = outcome.message;
      // The store's calls settle as microtasks: without a turn of the event loop between units
      // when one is due, a sync analysis would hold the server (GET /health included) for all
      // its units at once.
      await yieldWhenDue();
    }
  };
  const width = Math.max(1, Math.min(options.settings.max_concurrent_units, queue.length || 1));
  try {
    await Promise.all(Array.from({ length: width }, worker));
  } finally {
    // The last count is stored whatever ended the run (a cancelled job's count says what was analysed).
    await progress.flush();
  }

  // This run against the namespace's previous one (docs/decisions.md "Runs compared"), recorded with the end state.
  const runs_compared = job.run_id ? await compareRun(ctx, orgId, job.namespace, job.run_id) : null;
  const now = ctx.now().toISOString();
  let final: JobDoc | null = null;
  if (failure !== null) {
    final = await stores.jobs.transition(orgId, job.job_id, ['running'], {
      status: 'failed',
      error: failure,
      finished_at: now,
      updated_at: now,
      runs_compared,
    });
  } else if (quotaExceeded) {
    final = await stores.jobs.transition(orgId, job.job_id, ['running'], {
      status: 'done',
      quota_exceeded: true,
      finished_at: now,
      updated_at: now,
      runs_compared,
    });
  } else if (!stopped) {
    final = await stores.jobs.transition(orgId, job.job_id, ['running'], { status: 'done', finished_at: now, updated_at: now, runs_compared });
  }
  return final ?? (await stores.jobs.get(orgId, job.job_id)) ?? job;
}

/**
 * The stored analysis of a unit whose model's review is missing (docs/decisions.md "Analysis
 * layers"): the checks' findings (or their all-clear) with a summary that says the review is
 * missing and how to add it.
 */
function checksOnlyPayload(base: AnalysisPayload, matched: number, checked: number, name: string, model: 'failed' | 'pending'): AnalysisPayload {
  const why = model === 'failed' ? "The model's review failed" : "The model's review did not run (an earlier unit's model call failed the job)";
  return { ...base, summary: `Deterministic checks: ${matched} of ${checked} applicable check(s) matched ${name}. ${why}; retry the job to add it.` };
}

/** How often a run stores its progress at most (ms): a client polling GET /jobs/{job_id} sees a count this recent. */
const PROGRESS_INTERVAL_MS = 200;

type ProgressSnapshot = Pick<JobDoc, 'processed_count' | 'current_resource'>;

/**
 * Job progress stored at most every PROGRESS_INTERVAL_MS, not once per unit (docs/decisions.md
 * "Job progress"): `report` stores a snapshot at once when the last write is that old, else keeps
 * it as the latest, written by a timer when the interval is over; `flush` writes the latest
 * (call it when the run ends: no timer is left behind). Writes run one at a time, in order; a
 * failed write rejects the `report` or `flush` that awaits it, and the writes after it.
 */
function coalescedProgress(write: (snapshot: ProgressSnapshot) => Promise<void>) {
  let latest: ProgressSnapshot | null = null;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (latest === null) return chain;
    const snapshot = latest;
    latest = null;
    lastWrite = performance.now();
    chain = chain.then(() => write(snapshot));
    return chain;
  };
  const report = (snapshot: ProgressSnapshot): Promise<void> => {
    latest = snapshot;
    const wait = lastWrite + PROGRESS_INTERVAL_MS - performance.now();
    if (wait <= 0) return flush();
    // A timer's write failing surfaces at the run's final flush (the chain stays rejected).
    timer ??= setTimeout(() => void flush().catch(() => {}), wait);
    return Promise.resolve();
  };
  return { report, flush };
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
