import { RE2JS } from 're2js';

/**
 * Regular expressions a tenant supplies (SCIM group_role_mappings, `matches()` in rule checks)
 * run on RE2 (re2js): matching time is linear in the input, so no pattern can stall the event
 * loop by catastrophic backtracking the way JavaScript's RegExp can on `^(a+)+$`
 * (docs/decisions.md "Tenant patterns run on a linear-time engine"). Syntax is RE2's
 * (https://github.com/google/re2/wiki/Syntax): no backreferences or lookaround; `(?i)` flags
 * work. Semantics are JavaScript's `RegExp.prototype.test`: unanchored search, case-sensitive.
 */

/** A compiled linear-time pattern. */
export interface LinearPattern {
  /** True when the pattern matches anywhere in `input` (like RegExp.prototype.test). */
  test(input: string): boolean;
}

const cache = new Map<string, LinearPattern | Error>();
const CACHE_MAX = 1024;

function compile(pattern: string): LinearPattern | Error {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    try {
      const re = RE2JS.compile(pattern);
      entry = { test: (input: string) => re.test(input) };
    } catch (error) {
      entry = error instanceof Error ? error : new Error(String(error));
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(pattern, entry);
  }
  return entry;
}

/** Why `pattern` does not compile on RE2 (the parser's message), or null when it does. */
export function linearPatternError(pattern: string): string | null {
  const entry = compile(pattern);
  return entry instanceof Error ? entry.message : null;
}

/** `pattern` compiled for linear-time matching (cached, at most 1024 patterns), or null when RE2 cannot compile it. */
export function tryLinearPattern(pattern: string): LinearPattern | null {
  const entry = compile(pattern);
  return entry instanceof Error ? null : entry;
}
