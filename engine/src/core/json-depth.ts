import { ValidationError } from './errors';

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
  if (typeof value !== 'object' || value === null) return false;
  // Two parallel stacks (containers, their depths) instead of a [node, depth] pair per container.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    const children: readonly unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < children.length; i += 1) {
      const child = children[i];
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Throws ValidationError (422, JSON_TOO_DEEP_DETAIL) when `value` nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(value: unknown): void {
  if (jsonDepthExceeds(value)) throw new ValidationError(JSON_TOO_DEEP_DETAIL);
}
