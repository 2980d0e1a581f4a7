/**
 * One interface over the three LLM backends (DESIGN.md "LLM providers").
 */
import type { OutputSchema } from './output-schema';

/** Token counts of a prompt's two parts. */
export interface PromptTokens {
  readonly system: number;
  readonly user: number;
}

export type LlmBackend = 'openai' | 'anthropic' | 'ollama';
export const LLM_BACKENDS: readonly LlmBackend[] = ['openai', 'anthropic', 'ollama'];

export interface LlmRequest {
  readonly model: string;
  /** Stable prefix: instructions + ruleset. Identical bytes across units so provider prompt caching works. */
  readonly system: string;
  /** The unit-specific part. */
  readonly user: string;
  readonly maxOutputTokens: number;
  /**
   * The payload's JSON Schema, enforced by the provider where it can (OpenAI strict
   * json_schema, an Anthropic tool, Ollama `format`); absent = JSON mode only.
   */
  readonly outputSchema?: OutputSchema;
  /** Tokens of the system and user parts counted with a tokenizer (llm/tokens.ts); Ollama sizes its context from them. */
  readonly promptTokens?: PromptTokens;
  /** Per-call timeout in milliseconds. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface LlmResponse {
  readonly text: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** 'length' when the provider stopped at maxOutputTokens. */
  readonly stopReason: 'stop' | 'length' | 'other';
}

export interface LlmProvider {
  readonly backend: LlmBackend;
  /** Throws ProviderError. Performs exactly one HTTP call (the SDK's own retries are disabled). */
  complete(request: LlmRequest): Promise<LlmResponse>;
}

export interface ProviderConfig {
  readonly backend: LlmBackend;
  /** null for ollama. */
  readonly apiKey: string | null;
  /** Overrides the default endpoint (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST). */
  readonly baseUrl?: string | null;
}

/** A failed provider call. `retryable` for 429, 5xx, timeouts and connection errors. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly kind: 'http' | 'timeout' | 'network' | 'aborted' = 'http',
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
