import { ValidationError } from '../errors';

/**
 * The deepest nesting of arrays/objects accepted in a JSON input (request bodies, plan JSON).
 * Real infrastructure documents stay far below it; recursive walks over deeper values would
 * exhaust the stack (a RangeError whose message must never reach a caller).
 */
export const MAX_JSON_DEPTH = 512;

export const JSON_TOO_DEEP_DETAIL = `JSON nested too deeply (more than ${MAX_JSON_DEPTH} levels of arrays/objects)`;

/**
 * True when a parsed JSON value nests arrays/objects more than `max` levels deep (the top-level
 * container is level 1). Iterative (an explicit stack), so it never overflows itself; stops at
 * the first path deeper than `max`.
 */
export function jsonDepthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Throws ValidationError (422, JSON_TOO_DEEP_DETAIL) when `value` nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(value: unknown): void {
  if (jsonDepthExceeds(value)) throw new ValidationError(JSON_TOO_DEEP_DETAIL);
}
