import { z } from 'zod';
import type { ModelStore } from '@planwarden/engine/llm/model-store';

/** Ollama's default address (its own documentation and the SDK's default). */
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

/** The part of `GET /api/tags` we read (Ollama API docs "List Local Models"). */
const TagsSchema = z.object({
  models: z.array(z.object({ name: z.string().min(1), size: z.number().optional(), modified_at: z.string().optional() }).passthrough()),
});

export interface OllamaModel {
  readonly name: string;
  /** Bytes on disk, when Ollama says. */
  readonly size: number | null;
}

export type OllamaDiscovery =
  | { readonly status: 'ready'; readonly host: string; readonly models: readonly OllamaModel[] }
  | { readonly status: 'no_model'; readonly host: string; readonly message: string }
  | { readonly status: 'not_running'; readonly host: string; readonly message: string };

const INSTALL_OLLAMA = 'Install Ollama from https://ollama.com/download, start it, then run `ollama pull llama3.1:8b` in a terminal.';
const PULL_MODEL = 'Run `ollama pull llama3.1:8b` (or any model you prefer) in a terminal, then refresh.';

/**
 * Normalises an `OLLAMA_HOST` value the way Ollama reads it: `host`, `host:port` or a URL;
 * no scheme = http, no port = 11434, `0.0.0.0` (a bind address) = 127.0.0.1. Null/empty = the default.
 */
export function ollamaBaseUrl(host: string | null | undefined): string {
  const raw = (host ?? '').trim();
  if (raw === '') return OLLAMA_DEFAULT_HOST;
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  const explicitPort = /^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/]*:\d+(?:\/|$)/i.test(raw);
  if (url.protocol === 'http:' && !explicitPort) url.port = '11434';
  return url.toString().replace(/\/+$/, '');
}

/**
 * Finds the local models: `GET {host}/api/tags` with a
 * timeout. Never throws: Ollama absent, refusing, answering garbage or timing out gives
 * `not_running` with how to install it; an empty list gives `no_model` with how to pull one.
 */
export async function discoverOllama(options: { host?: string | null; timeoutMs?: number; fetch?: typeof fetch } = {}): Promise<OllamaDiscovery> {
  let host: string;
  try {
    host = ollamaBaseUrl(options.host);
  } catch {
    return { status: 'not_running', host: String(options.host), message: `OLLAMA_HOST '${options.host}' is not a valid address. ${INSTALL_OLLAMA}` };
  }
  const doFetch = options.fetch ?? fetch;
  try {
    const res = await doFetch(`${host}/api/tags`, { signal: AbortSignal.timeout(options.timeoutMs ?? 2000), headers: { accept: 'application/json' } });
    if (!res.ok) return { status: 'not_running', host, message: `Ollama at ${host} answered HTTP ${res.status}. ${INSTALL_OLLAMA}` };
    const parsed = TagsSchema.safeParse(await res.json());
    if (!parsed.success) return { status: 'not_running', host, message: `The service at ${host} does not answer like Ollama. ${INSTALL_OLLAMA}` };
    if (parsed.data.models.length === 0) return { status: 'no_model', host, message: `Ollama is running at ${host} but has no model yet. ${PULL_MODEL}` };
    return { status: 'ready', host, models: parsed.data.models.map((m) => ({ name: m.name, size: m.size ?? null })) };
  } catch {
    return { status: 'not_running', host, message: `Ollama is not running at ${host}. ${INSTALL_OLLAMA}` };
  }
}

/**
 * Adds each discovered model to the local allowed-models catalogue (priced 0: a local model
 * costs nothing) so the dashboard's Analyse page offers it; existing rows are left as they are.
 * Returns the names added.
 */
export async function registerLocalModels(models: ModelStore, found: readonly OllamaModel[], now: string): Promise<string[]> {
  const added: string[] = [];
  for (const m of found) {
    if (await models.get('ollama', m.name)) continue;
    await models.create({
      llm_backend: 'ollama',
      model: m.name,
      input_price_per_1m_usd: 0,
      output_price_per_1m_usd: 0,
      enabled: true,
      created_by: null,
      created_at: now,
    });
    added.push(m.name);
  }
  return added;
}
