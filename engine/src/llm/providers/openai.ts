/**
 * `openai` backend over the official `openai` SDK (chat completions). Any OpenAI-compatible
 * server works through the base URL (DESIGN.md "LLM providers").
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from 'openai';
import { isRetryableStatus, mapDeadlineError, timeoutMessage, withDeadline } from '../retry';
import { ProviderError, type LlmProvider, type LlmRequest, type LlmResponse } from '../types';

export interface OpenAiProviderOptions {
  readonly apiKey: string;
  /** Explicit base URL, e.g. `http://127.0.0.1:8000/v1`; else OPENAI_BASE_URL, else the SDK default. */
  readonly baseUrl?: string | null;
}

/**
 * Builds the OpenAI provider. One `complete` = one `POST {base}/chat/completions` with
 * `response_format` strict `json_schema` (the request's outputSchema; `json_object` without one)
 * and `max_completion_tokens`; SDK retries off. A refusal (`message.refusal`) comes back as the
 * text, which then fails parsing like any non-payload answer.
 * Tokens: `usage.prompt_tokens` / `usage.completion_tokens`. finish_reason 'length' → 'length'.
 * @throws ProviderError from `complete` (see mapOpenAiError).
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): LlmProvider {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl || process.env.OPENAI_BASE_URL || undefined,
    // Do not pick up a deployment-wide org/project from the environment for a tenant's key.
    organization: null,
    project: null,
    maxRetries: 0,
  });
  return {
    backend: 'openai',
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const completion = await withDeadline(
        request.timeoutMs,
        request.signal,
        (signal) =>
          client.chat.completions.create(
            {
              model: request.model,
              messages: [
                { role: 'system', content: request.system },
                { role: 'user', content: request.user },
              ],
              max_completion_tokens: request.maxOutputTokens,
              response_format: request.outputSchema
                ? {
                    type: 'json_schema',
                    json_schema: {
                      name: request.outputSchema.name,
                      description: request.outputSchema.description,
                      strict: true,
                      schema: request.outputSchema.schema,
                    },
                  }
                : { type: 'json_object' },
            },
            { signal, timeout: request.timeoutMs, maxRetries: 0 },
          ),
        (err, state) => mapDeadlineError(err, state, request.timeoutMs) ?? mapOpenAiError(err, request.timeoutMs),
      );
      const choice = completion.choices?.[0];
      const finish = choice?.finish_reason;
      return {
        text: choice?.message?.content ?? choice?.message?.refusal ?? '',
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
        stopReason: finish === 'stop' ? 'stop' : finish === 'length' ? 'length' : 'other',
      };
    },
  };
}

/**
 * Maps an `openai` SDK error to ProviderError with the API's own `error.message`
 * (body `{error: {message, type, code}}`) and the HTTP status.
 */
export function mapOpenAiError(err: unknown, timeoutMs: number): ProviderError {
  if (err instanceof APIConnectionTimeoutError) {
    return new ProviderError(timeoutMessage(timeoutMs), null, true, 'timeout');
  }
  if (err instanceof APIUserAbortError) return new ProviderError('LLM call aborted', null, false, 'aborted');
  if (err instanceof APIConnectionError) {
    return new ProviderError(connectionMessage(err), null, true, 'network');
  }
  if (err instanceof APIError) {
    const body = err.error as { message?: unknown } | undefined;
    const message = typeof body?.message === 'string' && body.message ? body.message : err.message;
    return new ProviderError(message, err.status ?? null, isRetryableStatus(err.status), 'http');
  }
  // The SDK refusing the request before sending it: another attempt cannot help.
  if (err instanceof OpenAIError) return new ProviderError(err.message, null, false, 'http');
  // A failure while reading the body (socket reset) arrives as a plain error.
  return new ProviderError(err instanceof Error ? err.message : String(err), null, true, 'network');
}

function connectionMessage(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message ? `${err.message} (${cause.message})` : err.message;
}
