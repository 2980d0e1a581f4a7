/**
 * Prompt token counting with a real tokenizer (js-tiktoken, `o200k_base`: the GPT-4o/o-series
 * encoding, also a close estimate for current open models' ~128k-200k vocabularies). Used to
 * size a local model's context window (Ollama `num_ctx`) and to detect a truncated prompt.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import type { LlmBackend, PromptTokens } from './types';

let encoding: Tiktoken | null = null;

/**
 * Only the o200k_base ranks are imported (js-tiktoken's main entry holds every
 * encoding, ~10 MB of memory in the server at rest, of which this is a quarter). Same encoder
 * as `getEncoding('o200k_base')`.
 */
function o200kBase(): Tiktoken {
  return new Tiktoken(o200kRanks);
}

/** Number of o200k_base tokens of `text` (special-token text counted as plain text). */
export function countTokens(text: string): number {
  encoding ??= o200kBase();
  return encoding.encode(text, [], []).length;
}

/**
 * Backends whose provider reads `LlmRequest.promptTokens` (Ollama: `num_ctx` and its truncation
 * check, providers/ollama.ts). For the others the prompt is not tokenised at all (docs/decisions.md "Job runner costs": the
 * count cost ~5 ms of CPU per unit and nothing read it).
 */
const PROMPT_TOKEN_BACKENDS: ReadonlySet<LlmBackend> = new Set<LlmBackend>(['ollama']);

/** True when a provider of `backend` uses counted prompt tokens (see PROMPT_TOKEN_BACKENDS). */
export function backendUsesPromptTokens(backend: LlmBackend): boolean {
  return PROMPT_TOKEN_BACKENDS.has(backend);
}

/** Counts both parts of a prompt; the system part (shared by many units) is memoised by its text. */
export function countPromptTokens(system: string, user: string): PromptTokens {
  return { system: countTokensMemoised(system), user: countTokens(user) };
}

const memo = new Map<string, number>();
/** Characters of text the memo may hold (~2-4 MB): a few dozen rulesets and their companions. */
const MEMO_MAX_CHARS = 1_000_000;
let memoChars = 0;

/**
 * countTokens for text that recurs (a ruleset's system prompt, a companion shown to many units of
 * one plan): remembered by text, oldest first out beyond MEMO_MAX_CHARS characters of keys.
 */
export function countTokensMemoised(text: string): number {
  let tokens = memo.get(text);
  if (tokens === undefined) {
    tokens = countTokens(text);
    if (text.length > MEMO_MAX_CHARS) return tokens;
    for (const key of memo.keys()) {
      if (memoChars + text.length <= MEMO_MAX_CHARS) break;
      memo.delete(key);
      memoChars -= key.length;
    }
    memo.set(text, tokens);
    memoChars += text.length;
  }
  return tokens;
}
