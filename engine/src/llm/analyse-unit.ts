/**
 * One unit through the LLM: prompt, call, parse, with retries (analysis-api.md "Server-side
 * analysis", "Limits": llm_timeout_seconds, llm_max_attempts, llm_retry_backoff_seconds,
 * llm_max_output_tokens; DESIGN.md "LLM providers").
 */
import { UpstreamError } from '../core/errors';
import type { AnalysisPayload } from '../core/payload';
import type { AnalysisUnit } from '../core/unit';
import { OutputParseError, parseAnalysisOutput } from './parse-output';
import { analysisOutputSchema } from './output-schema';
import { buildPrompt } from './prompt';
import { backendUsesPromptTokens, countPromptTokens } from './tokens';
import { rulesetBlocks } from '../rules/ruleset';
import { backoffDelayMs, defaultSleep, DEFAULT_BACKOFF_CAP_MS, type RandomFn, type SleepFn } from './retry';
import { ProviderError, type LlmProvider, type LlmResponse } from './types';

/** One HTTP call to the provider, for metering (tokens are counted even when the unit fails). */
export interface CallRecord {
  /** 1-based. */
  readonly attempt: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
  /** Why this attempt failed; null when it produced the payload. */
  readonly error: string | null;
  /** null when the call itself failed (no response). */
  readonly stopReason: LlmResponse['stopReason'] | null;
}

export interface AnalysisSettings {
  /** Total attempts, 1 disables retry (`analysis.llm_max_attempts`, 1-6). */
  readonly maxAttempts: number;
  /** Backoff base in seconds (`analysis.llm_retry_backoff_seconds`). */
  readonly backoffSeconds: number;
  /** Per-call timeout in seconds (`analysis.llm_timeout_seconds`). */
  readonly timeoutSeconds: number;
  /** `analysis.llm_max_output_tokens`. */
  readonly maxOutputTokens: number;
}

export interface AnalyseUnitInput {
  readonly model: string;
  /** The Markdown ruleset (the rules selected for the unit). */
  readonly rules: string;
  /** Ids of the rules in `rules`; default: the rule headings of `rules`. rule_id must be one of them or NO-FINDINGS. */
  readonly ruleIds?: readonly string[];
  /** Known facts (deterministic findings) stated in the prompt (prompt.ts). */
  readonly facts?: string;
  readonly unit: AnalysisUnit;
  readonly calibration?: string;
  readonly settings: AnalysisSettings;
  /** Cancels the in-flight call and any backoff wait (job cancellation). */
  readonly signal?: AbortSignal;
  /** Injectable for tests; default a real timer. */
  readonly sleep?: SleepFn;
  /** Injectable for tests; default Math.random. */
  readonly random?: RandomFn;
}

export interface AnalyseUnitResult {
  readonly payload: AnalysisPayload;
  /** Every call made, failed attempts included. */
  readonly calls: CallRecord[];
  /** Evidence lines dropped from the successful reply (not lines of the body). */
  readonly droppedEvidence: number;
}

export type UnitFailureReason = 'provider' | 'parse' | 'truncated';

/**
 * The unit could not be analysed. 502 if it reaches the error middleware (analysis-api.md
 * "Errors": unparseable or truncated output; a provider refusal is an upstream failure too).
 * `reason` is the last attempt's failure; `providerMessage`/`providerStatus` carry the
 * provider's own words for provider failures; `calls` lets the caller meter tokens.
 */
export class UnitAnalysisError extends UpstreamError {
  constructor(
    readonly reason: UnitFailureReason,
    message: string,
    readonly calls: CallRecord[],
    readonly providerMessage: string | null = null,
    readonly providerStatus: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Analyses one unit: builds the prompt (prompt.ts) and the enforced output schema (rule_id an
 * enum of the rules sent, output-schema.ts), counts the prompt's tokens when the provider reads
 * them (Ollama, tokens.ts backendUsesPromptTokens), calls
 * `provider.complete` and parses the reply (parse-output.ts; a rule id outside the ruleset
 * fails the attempt), up to `settings.maxAttempts` attempts in total.
 *
 * Retried: retryable ProviderErrors (408/409/429/5xx, timeouts, connection errors),
 * unparseable output, truncated output (stopReason 'length'). Between attempts it waits
 * `backoffDelayMs(attempt - 1, backoffSeconds * 1000, max(60 s, base), random)` (full jitter).
 * Not retried: non-retryable ProviderErrors (400, 401, 403, 404, cancellation).
 *
 * @returns the validated payload, the calls made (tokens, duration, error per attempt) and
 *          the number of evidence lines dropped.
 * @throws UnitAnalysisError with reason 'provider' | 'parse' | 'truncated' (of the last
 *         attempt), the provider's message for provider errors, and every call made.
 */
export async function analyseUnit(provider: LlmProvider, input: AnalyseUnitInput): Promise<AnalyseUnitResult> {
  const { settings, unit } = input;
  const sleep = input.sleep ?? defaultSleep;
  const maxAttempts = Math.max(1, Math.floor(settings.maxAttempts));
  const baseMs = settings.backoffSeconds * 1000;
  const timeoutMs = Math.round(settings.timeoutSeconds * 1000);
  const { system, user } = buildPrompt({ rules: input.rules, unit, calibration: input.calibration, facts: input.facts });
  const ruleIds = input.ruleIds ?? rulesetBlocks(input.rules).flatMap((b) => (b.rule ? [b.rule.id] : []));
  const outputSchema = analysisOutputSchema(ruleIds);
  const allowed = new Set(outputSchema.ruleIds);
  // Counted only for a provider that reads the count (Ollama's num_ctx); tokenising costs CPU per unit.
  const promptTokens = backendUsesPromptTokens(provider.backend) ? countPromptTokens(system, user) : undefined;
  const calls: CallRecord[] = [];
  let failure: UnitAnalysisError | null = null;

  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) {
      const wait = backoffDelayMs(attempt - 2, baseMs, Math.max(DEFAULT_BACKOFF_CAP_MS, baseMs), input.random);
      try {
        await sleep(wait, input.signal);
      } catch {
        throw providerFailure(provider, new ProviderError('LLM call aborted', null, false, 'aborted'), calls);
      }
    }
    const started = Date.now();
    let response: LlmResponse;
    try {
      response = await provider.complete({
        model: input.model,
        system,
        user,
        maxOutputTokens: settings.maxOutputTokens,
        outputSchema,
        promptTokens,
        timeoutMs,
        signal: input.signal,
      });
    } catch (err) {
      const error = err instanceof ProviderError ? err : new ProviderError(err instanceof Error ? err.message : String(err), null, false, 'http');
      calls.push({ attempt, inputTokens: 0, outputTokens: 0, durationMs: Date.now() - started, error: error.message, stopReason: null });
      failure = providerFailure(provider, error, calls);
      if (!error.retryable) throw failure;
      continue;
    }
    const durationMs = Date.now() - started;
    const record = { attempt, inputTokens: response.inputTokens, outputTokens: response.outputTokens, durationMs, stopReason: response.stopReason };

    if (response.stopReason === 'length') {
      const message = `LLM output was truncated at the output token limit (${settings.maxOutputTokens})`;
      calls.push({ ...record, error: message });
      failure = new UnitAnalysisError('truncated', `${message} on all ${maxAttempts} attempt(s)`, calls);
      continue;
    }
    try {
      const parsed = parseAnalysisOutput(response.text, unit, allowed);
      calls.push({ ...record, error: null });
      return { payload: parsed.payload, calls, droppedEvidence: parsed.droppedEvidence };
    } catch (err) {
      if (!(err instanceof OutputParseError)) throw err;
      calls.push({ ...record, error: err.message });
      failure = new UnitAnalysisError('parse', `${err.message} (after ${maxAttempts} attempt(s))`, calls);
    }
  }
  // maxAttempts >= 1, so at least one attempt failed and set `failure`.
  throw failure as UnitAnalysisError;
}

function providerFailure(provider: LlmProvider, error: ProviderError, calls: CallRecord[]): UnitAnalysisError {
  const where = error.status != null ? `${provider.backend} (HTTP ${error.status})` : provider.backend;
  return new UnitAnalysisError('provider', `LLM provider ${where}: ${error.message}`, calls, error.message, error.status);
}
