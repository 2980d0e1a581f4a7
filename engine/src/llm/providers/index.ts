/**
 * Provider factory over the three `llm_backend` values (DESIGN.md "LLM providers").
 *
 * Each provider module (and so its SDK: openai, @anthropic-ai/sdk, ollama) is loaded on the
 * first `complete` of a provider of that backend, not when the server starts (docs/decisions.md
 * "Provider SDKs load on first use"); a server that never calls a backend never loads its SDK.
 * The module is imported once per process.
 */
import { ProviderError, type LlmBackend, type LlmProvider, type LlmRequest, type ProviderConfig } from '../types';

type Factory = (options: { apiKey: string | null; baseUrl?: string | null }) => LlmProvider;

const LOADERS: Record<LlmBackend, () => Promise<Factory>> = {
  openai: async () => (await import('./openai')).createOpenAiProvider as Factory,
  anthropic: async () => (await import('./anthropic')).createAnthropicProvider as Factory,
  ollama: async () => (await import('./ollama')).createOllamaProvider as Factory,
};
const loaded = new Map<LlmBackend, Promise<Factory>>();

function factoryFor(backend: LlmBackend): Promise<Factory> {
  let factory = loaded.get(backend);
  if (!factory) {
    factory = LOADERS[backend]();
    factory.catch(() => loaded.delete(backend)); // a failed load is retried on the next call
    loaded.set(backend, factory);
  }
  return factory;
}

/**
 * Builds the provider for `config.backend`. Base URL: `config.baseUrl`, else OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL / OLLAMA_HOST, else the SDK default (ollama: http://127.0.0.1:11434).
 * Each provider performs exactly one HTTP call per `complete` (SDK retries disabled) and
 * enforces `timeoutMs` itself. The backend's module loads on the first `complete`.
 * @throws ProviderError (status null, not retryable) when openai/anthropic get no API key —
 *         callers check for a key first (analysis-api.md "Server-side analysis": 400) — or
 *         for an unknown backend.
 */
export function createProvider(config: ProviderConfig): LlmProvider {
  const backend = config.backend;
  if (!Object.hasOwn(LOADERS, backend)) {
    throw new ProviderError(`Unknown llm_backend: ${String(backend)}`, null, false, 'http');
  }
  const options = { apiKey: backend === 'ollama' ? config.apiKey : requireKey(config), baseUrl: config.baseUrl };
  let provider: Promise<LlmProvider> | null = null;
  return {
    backend,
    async complete(request: LlmRequest) {
      provider ??= factoryFor(backend).then((create) => create(options));
      return (await provider).complete(request);
    },
  };
}

function requireKey(config: ProviderConfig): string {
  if (!config.apiKey) throw new ProviderError(`No API key given for ${config.backend}`, null, false, 'http');
  return config.apiKey;
}
