/**
 * The curated allowed-models catalogue and per-call cost (analysis-api.md "Allowed model",
 * "LLM credentials, quota, models": 9 curated defaults, 3 per provider, seeded at startup).
 */
import type { LlmBackend } from './types';

/** The priced part of an allowed-model row. Prices in USD per 1,000,000 tokens. */
export interface ModelPricing {
  readonly llm_backend: LlmBackend;
  readonly model: string;
  readonly input_price_per_1m_usd: number;
  readonly output_price_per_1m_usd: number;
}

/**
 * The 9 curated defaults. List prices (USD per 1M tokens) as published by the providers:
 * OpenAI pricing page; Anthropic pricing page (models chosen among those the installed
 * `@anthropic-ai/sdk` lists as current, so no deprecation warning is printed per call);
 * Ollama runs locally and is free. Cached-input discounts are not modelled: every input
 * token is priced at the base rate (an upper bound). Superadmins edit prices via
 * /admin/models; these are only the seed.
 */
export const CURATED_MODELS: readonly ModelPricing[] = [
  { llm_backend: 'openai', model: 'gpt-4o', input_price_per_1m_usd: 2.5, output_price_per_1m_usd: 10 },
  { llm_backend: 'openai', model: 'gpt-4o-mini', input_price_per_1m_usd: 0.15, output_price_per_1m_usd: 0.6 },
  { llm_backend: 'openai', model: 'gpt-4.1-mini', input_price_per_1m_usd: 0.4, output_price_per_1m_usd: 1.6 },
  { llm_backend: 'anthropic', model: 'claude-sonnet-4-6', input_price_per_1m_usd: 3, output_price_per_1m_usd: 15 },
  { llm_backend: 'anthropic', model: 'claude-haiku-4-5', input_price_per_1m_usd: 1, output_price_per_1m_usd: 5 },
  { llm_backend: 'anthropic', model: 'claude-opus-4-6', input_price_per_1m_usd: 5, output_price_per_1m_usd: 25 },
  { llm_backend: 'ollama', model: 'llama3.1:8b', input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 },
  { llm_backend: 'ollama', model: 'qwen2.5-coder:7b', input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 },
  { llm_backend: 'ollama', model: 'mistral', input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 },
];

/**
 * Cost in USD of one call: `(input * input_price + output * output_price) / 1e6`, unrounded
 * (callers sum many small values; round only for display).
 * @param inputTokens, outputTokens non-negative token counts from the provider's usage fields.
 * @throws RangeError on a negative or non-finite token count.
 */
export function costUsd(row: Pick<ModelPricing, 'input_price_per_1m_usd' | 'output_price_per_1m_usd'>, inputTokens: number, outputTokens: number): number {
  if (!Number.isFinite(inputTokens) || !Number.isFinite(outputTokens) || inputTokens < 0 || outputTokens < 0) {
    throw new RangeError('token counts must be finite and >= 0');
  }
  return (inputTokens * row.input_price_per_1m_usd + outputTokens * row.output_price_per_1m_usd) / 1_000_000;
}
