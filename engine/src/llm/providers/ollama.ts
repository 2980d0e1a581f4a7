/**
 * `ollama` backend over the official `ollama` SDK (`POST /api/chat`, non-streaming).
 */
import { Ollama } from 'ollama';
import { isRetryableStatus, mapDeadlineError, withDeadline } from '../retry';
import { ProviderError, type LlmProvider, type LlmRequest, type LlmResponse } from '../types';

/** The desktop's offline default (DESIGN.md "LLM providers"). */
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

export interface OllamaProviderOptions {
  /** Sent as `Authorization: Bearer` when set (a reverse proxy or a hosted Ollama); usually null. */
  readonly apiKey: string | null;
  /** Explicit host; else OLLAMA_HOST, else http://127.0.0.1:11434. */
  readonly baseUrl?: string | null;
}

/**
 * Builds the Ollama provider. One `complete` = one `POST {host}/api/chat` with
 * `stream: false`, `format: 'json'` and `options.num_predict = maxOutputTokens`.
 * Tokens: `prompt_eval_count` / `eval_count`. done_reason 'length' → 'length'.
 * The SDK has no retries and passes no abort signal on non-streaming calls, so each call
 * gets a client whose `fetch` carries our deadline signal.
 * @throws ProviderError from `complete` (see mapOllamaError).
 */
export function createOllamaProvider(options: OllamaProviderOptions): LlmProvider {
  const host = options.baseUrl || process.env.OLLAMA_HOST || OLLAMA_DEFAULT_HOST;
  const headers: Record<string, string> = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
  return {
    backend: 'ollama',
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const response = await withDeadline(
        request.timeoutMs,
        request.signal,
        (signal) => {
          const client = new Ollama({
            host,
            headers,
            fetch: (input, init) => fetch(input, { ...init, signal }),
          });
          return client.chat({
            model: request.model,
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.user },
            ],
            stream: false,
            format: 'json',
            options: { num_predict: request.maxOutputTokens },
          });
        },
        (err, state) => mapDeadlineError(err, state, request.timeoutMs) ?? mapOllamaError(err),
      );
      const done = response.done_reason;
      return {
        text: response.message?.content ?? '',
        inputTokens: response.prompt_eval_count ?? 0,
        outputTokens: response.eval_count ?? 0,
        stopReason: done === 'stop' ? 'stop' : done === 'length' ? 'length' : 'other',
      };
    },
  };
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
