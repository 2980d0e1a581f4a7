/**
 * Prompt token counting with a real tokenizer (js-tiktoken, `o200k_base`: the GPT-4o/o-series
 * encoding, also a close estimate for current open models' ~128k-200k vocabularies). Used to
 * size a local model's context window (Ollama `num_ctx`) and to detect a truncated prompt.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';

let encoding: Tiktoken | null = null;

/**
 * Only the o200k_base ranks are imported (issue 18: js-tiktoken's main entry holds every
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

/** Token counts of a prompt's two parts. */
export interface PromptTokens {
  readonly system: number;
  readonly user: number;
}

/** Counts both parts of a prompt; the system part (shared by many units) is memoised by identity of text. */
export function countPromptTokens(system: string, user: string): PromptTokens {
  let sys = systemCounts.get(system);
  if (sys === undefined) {
    sys = countTokens(system);
    if (systemCounts.size >= 64) systemCounts.delete(systemCounts.keys().next().value!);
    systemCounts.set(system, sys);
  }
  return { system: sys, user: countTokens(user) };
}

const systemCounts = new Map<string, number>();
