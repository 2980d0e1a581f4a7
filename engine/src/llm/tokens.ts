/**
 * Prompt token counting with a real tokenizer (js-tiktoken, `o200k_base`: the GPT-4o/o-series
 * encoding, also a close estimate for current open models' ~128k-200k vocabularies). Used to
 * size a local model's context window (Ollama `num_ctx`) and to detect a truncated prompt.
 */
import { getEncoding, type Tiktoken } from 'js-tiktoken';

let encoding: Tiktoken | null = null;

/** Number of o200k_base tokens of `text` (special-token text counted as plain text). */
export function countTokens(text: string): number {
  encoding ??= getEncoding('o200k_base');
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
