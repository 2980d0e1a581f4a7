/**
 * `ollama` backend over the official `ollama` SDK (`POST /api/chat`, non-streaming; `POST
 * /api/show` for the model's context length).
 */
import { Ollama } from 'ollama';
import { isRetryableStatus, mapDeadlineError, withDeadline } from '../retry';
import { ProviderError, type LlmProvider, type LlmRequest, type LlmResponse } from '../types';

/** The desktop's offline default (DESIGN.md "LLM providers"). */
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

/** Tokens added around the messages by the model's chat template (role markers), and slack for tokenizer differences. */
const TEMPLATE_MARGIN_TOKENS = 256;
/**
 * A prompt counted at N tokens (o200k_base) that Ollama evaluates as fewer than
 * TRUNCATION_RATIO × (N − tokens it may have served from its prefix cache) was cut (docs/decisions.md "Ollama"):
 * the ratio absorbs the difference between our tokenizer and the model's.
 */
const TRUNCATION_RATIO = 0.75;

export interface OllamaProviderOptions {
  /** Sent as `Authorization: Bearer` when set (a reverse proxy or a hosted Ollama); usually null. */
  readonly apiKey: string | null;
  /** Explicit host; else OLLAMA_HOST, else http://127.0.0.1:11434. */
  readonly baseUrl?: string | null;
}

/**
 * Builds the Ollama provider. One `complete` = `POST {host}/api/show` (first call per model only,
 * cached) + one `POST {host}/api/chat` with `stream: false`, `format` = the output schema (or
 * 'json'), `options.num_predict = maxOutputTokens` and, when the request carries counted prompt
 * tokens, `options.num_ctx = prompt + output + 256` (capped at the model's context length), so
 * Ollama never silently drops the start of the prompt (its default context is 2-8k tokens).
 * Tokens: `prompt_eval_count` / `eval_count`. done_reason 'length' → 'length'.
 * The SDK has no retries and passes no abort signal on non-streaming calls, so each call
 * gets a client whose `fetch` carries our deadline signal.
 * @throws ProviderError from `complete` (see mapOllamaError); not retryable, status 413, when
 *         the prompt is larger than the model's context length (message names model and sizes);
 *         retryable when Ollama evaluated fewer prompt tokens than were sent (truncation).
 */
export function createOllamaProvider(options: OllamaProviderOptions): LlmProvider {
  const host = options.baseUrl || process.env.OLLAMA_HOST || OLLAMA_DEFAULT_HOST;
  const headers: Record<string, string> = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
  const contextLengths = new Map<string, Promise<number | null>>();
  const sentSystems = new Set<string>();
  const clientFor = (signal: AbortSignal) => new Ollama({ host, headers, fetch: (input, init) => fetch(input, { ...init, signal }) });
  return {
    backend: 'ollama',
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const counted = request.promptTokens;
      let numCtx: number | undefined;
      if (counted) {
        const prompt = counted.system + counted.user;
        const wanted = prompt + request.maxOutputTokens + TEMPLATE_MARGIN_TOKENS;
        const limit = await modelContextLength(request);
        if (limit !== null && prompt + TEMPLATE_MARGIN_TOKENS > limit) {
          throw new ProviderError(
            `Prompt too large for Ollama model '${request.model}': ${prompt} prompt tokens (+${TEMPLATE_MARGIN_TOKENS} template margin) exceed its context length of ${limit} tokens`,
            413,
            false,
            'http',
          );
        }
        numCtx = limit === null ? wanted : Math.min(wanted, limit);
      }
      const response = await withDeadline(
        request.timeoutMs,
        request.signal,
        (signal) =>
          clientFor(signal).chat({
            model: request.model,
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.user },
            ],
            stream: false,
            format: request.outputSchema ? request.outputSchema.schema : 'json',
            options: { num_predict: request.maxOutputTokens, ...(numCtx !== undefined ? { num_ctx: numCtx } : {}) },
          }),
        (err, state) => mapDeadlineError(err, state, request.timeoutMs) ?? mapOllamaError(err),
      );
      const evaluated = response.prompt_eval_count ?? 0;
      if (counted && evaluated > 0) {
        // Ollama reports only the tokens it evaluated: a system prefix it already holds may be served from cache.
        const cacheable = sentSystems.has(request.system) ? counted.system : 0;
        const expected = counted.system + counted.user - cacheable;
        if (evaluated < TRUNCATION_RATIO * expected) {
          throw new ProviderError(
            `Ollama model '${request.model}' evaluated ${evaluated} prompt tokens of the ${counted.system + counted.user} sent (num_ctx ${numCtx}): the prompt was truncated`,
            null,
            true,
            'http',
          );
        }
      }
      sentSystems.add(request.system);
      const done = response.done_reason;
      return {
        text: response.message?.content ?? '',
        inputTokens: evaluated,
        outputTokens: response.eval_count ?? 0,
        stopReason: done === 'stop' ? 'stop' : done === 'length' ? 'length' : 'other',
      };
    },
  };

  /** The model's trained context length from `/api/show` (`<architecture>.context_length`); null when not reported. */
  function modelContextLength(request: LlmRequest): Promise<number | null> {
    let pending = contextLengths.get(request.model);
    if (!pending) {
      pending = withDeadline(
        request.timeoutMs,
        request.signal,
        (signal) => clientFor(signal).show({ model: request.model }),
        (err, state) => mapDeadlineError(err, state, request.timeoutMs) ?? mapOllamaError(err),
      ).then((show) => contextLengthOf(show.model_info as unknown));
      contextLengths.set(request.model, pending);
      pending.catch(() => contextLengths.delete(request.model)); // a failed look-up is retried by the next call
    }
    return pending;
  }
}

function contextLengthOf(info: unknown): number | null {
  const entries: Record<string, unknown> = info instanceof Map ? Object.fromEntries(info) : ((info as Record<string, unknown> | null) ?? {});
  const arch = entries['general.architecture'];
  const direct = typeof arch === 'string' ? entries[`${arch}.context_length`] : undefined;
  const value = direct ?? Object.entries(entries).find(([k]) => k.endsWith('.context_length'))?.[1];
  return typeof value === 'number' && value > 0 ? value : null;
}

/**
 * Maps an `ollama` SDK error to ProviderError. HTTP errors are the SDK's ResponseError
 * (`error` = the server's `{error}` text, `status_code`); the class is not exported, so it is
 * recognised by its fields. Anything else is a connection failure (fetch failed), retryable.
 */
export function mapOllamaError(err: unknown): ProviderError {
  const status = (err as { status_code?: unknown } | null)?.status_code;
  if (err instanceof Error && typeof status === 'number') {
    const text = (err as { error?: unknown }).error;
    const message = typeof text === 'string' && text ? text : err.message;
    return new ProviderError(message, status, isRetryableStatus(status), 'http');
  }
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
    return new ProviderError(`${err.message}${detail}`, null, true, 'network');
  }
  return new ProviderError(String(err), null, true, 'network');
}
