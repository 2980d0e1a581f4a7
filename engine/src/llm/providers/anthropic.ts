/**
 * `anthropic` backend over the official `@anthropic-ai/sdk` (Messages API).
 */
import Anthropic, { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { isRetryableStatus, mapDeadlineError, timeoutMessage, withDeadline } from '../retry';
import { ProviderError, type LlmProvider, type LlmRequest, type LlmResponse } from '../types';

export interface AnthropicProviderOptions {
  readonly apiKey: string;
  /** Explicit base URL (without `/v1`); else ANTHROPIC_BASE_URL, else the SDK default. */
  readonly baseUrl?: string | null;
}

/**
 * Builds the Anthropic provider. One `complete` = one `POST {base}/v1/messages`. The system
 * text goes in one `system` text block marked `cache_control: {type: 'ephemeral'}` so the
 * stable instructions + ruleset prefix is cached across units. With an output schema the payload
 * is enforced through one tool (`submit_analysis`, input_schema = the schema) that `tool_choice`
 * forces; the tool call's input is the reply. Without one, JSON is asked for by the prompt.
 * Tokens: input = input_tokens + cache_creation_input_tokens + cache_read_input_tokens (every
 * input token the call consumed), output = output_tokens. stop_reason 'max_tokens' (and
 * 'model_context_window_exceeded') → 'length'.
 * @throws ProviderError from `complete` (see mapAnthropicError).
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): LlmProvider {
  const client = new Anthropic({
    apiKey: options.apiKey,
    // An explicit key must not be shadowed by a deployment-wide ANTHROPIC_AUTH_TOKEN.
    authToken: null,
    baseURL: options.baseUrl || process.env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: 0,
  });
  return {
    backend: 'anthropic',
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const message = await withDeadline(
        request.timeoutMs,
        request.signal,
        (signal) =>
          client.messages.create(
            {
              model: request.model,
              max_tokens: request.maxOutputTokens,
              system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
              messages: [{ role: 'user', content: request.user }],
              ...(request.outputSchema
                ? {
                    tools: [
                      {
                        name: request.outputSchema.name,
                        description: request.outputSchema.description,
                        input_schema: request.outputSchema.schema as Anthropic.Tool.InputSchema,
                      },
                    ],
                    tool_choice: { type: 'tool' as const, name: request.outputSchema.name },
                  }
                : {}),
            },
            // An explicit timeout also keeps the SDK from refusing large non-streaming max_tokens.
            { signal, timeout: request.timeoutMs, maxRetries: 0 },
          ),
        (err, state) => mapDeadlineError(err, state, request.timeoutMs) ?? mapAnthropicError(err, request.timeoutMs),
      );
      // With an output schema the payload is the forced tool call's input; else the text blocks.
      const tool = (message.content ?? []).find((block) => block.type === 'tool_use');
      const text =
        tool && tool.type === 'tool_use'
          ? JSON.stringify(tool.input)
          : (message.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
      const usage = message.usage;
      const stop = message.stop_reason;
      return {
        text,
        inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0),
        outputTokens: usage?.output_tokens ?? 0,
        stopReason:
          stop === 'end_turn' || stop === 'stop_sequence' || stop === 'tool_use'
            ? 'stop'
            : stop === 'max_tokens' || stop === 'model_context_window_exceeded'
              ? 'length'
              : 'other',
      };
    },
  };
}

/**
 * Maps an `@anthropic-ai/sdk` error to ProviderError with the API's own message
 * (body `{type: 'error', error: {type, message}}`) and the HTTP status.
 */
export function mapAnthropicError(err: unknown, timeoutMs: number): ProviderError {
  if (err instanceof APIConnectionTimeoutError) {
    return new ProviderError(timeoutMessage(timeoutMs), null, true, 'timeout');
  }
  if (err instanceof APIUserAbortError) return new ProviderError('LLM call aborted', null, false, 'aborted');
  if (err instanceof APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
    return new ProviderError(`${err.message}${detail}`, null, true, 'network');
  }
  if (err instanceof APIError) {
    const body = err.error as { error?: { message?: unknown } } | undefined;
    const inner = body?.error?.message;
    const message = typeof inner === 'string' && inner ? inner : err.message;
    return new ProviderError(message, err.status ?? null, isRetryableStatus(err.status), 'http');
  }
  // The SDK refusing the request before sending it: another attempt cannot help.
  if (err instanceof AnthropicError) return new ProviderError(err.message, null, false, 'http');
  // A failure while reading the body (socket reset) arrives as a plain error.
  return new ProviderError(err instanceof Error ? err.message : String(err), null, true, 'network');
}
