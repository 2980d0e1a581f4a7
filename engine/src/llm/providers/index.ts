/**
 * Provider factory over the three `llm_backend` values (DESIGN.md "LLM providers").
 */
import { ProviderError, type LlmProvider, type ProviderConfig } from '../types';
import { createAnthropicProvider } from './anthropic';
import { createOllamaProvider } from './ollama';
import { createOpenAiProvider } from './openai';

export { createAnthropicProvider, mapAnthropicError } from './anthropic';
export { createOllamaProvider, mapOllamaError, OLLAMA_DEFAULT_HOST } from './ollama';
export { createOpenAiProvider, mapOpenAiError } from './openai';

/**
 * Builds the provider for `config.backend`. Base URL: `config.baseUrl`, else OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL / OLLAMA_HOST, else the SDK default (ollama: http://127.0.0.1:11434).
 * Each provider performs exactly one HTTP call per `complete` (SDK retries disabled) and
 * enforces `timeoutMs` itself.
 * @throws ProviderError (status null, not retryable) when openai/anthropic get no API key —
 *         callers check for a key first (analysis-api.md "Server-side analysis": 400).
 */
export function createProvider(config: ProviderConfig): LlmProvider {
  switch (config.backend) {
    case 'openai':
      return createOpenAiProvider({ apiKey: requireKey(config), baseUrl: config.baseUrl });
    case 'anthropic':
      return createAnthropicProvider({ apiKey: requireKey(config), baseUrl: config.baseUrl });
    case 'ollama':
      return createOllamaProvider({ apiKey: config.apiKey, baseUrl: config.baseUrl });
    default: {
      const unknown: never = config.backend;
      throw new ProviderError(`Unknown llm_backend: ${String(unknown)}`, null, false, 'http');
    }
  }
}

function requireKey(config: ProviderConfig): string {
  if (!config.apiKey) throw new ProviderError(`No API key given for ${config.backend}`, null, false, 'http');
  return config.apiKey;
}
