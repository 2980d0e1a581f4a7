/**
 * `compute` memoised by its string argument, keeping at most `max` results (the oldest goes
 * first). For what the checks derive from a rule's text alone (a check's parsed program, its
 * evidence plan, a rule's sections): the same rules are applied to every unit of a plan, so each
 * is derived once per process instead of once per unit. `compute` must be pure; its results are
 * shared between callers, who must not change them.
 */
export function memoByText<T>(compute: (text: string) => T, max = 1024): (text: string) => T {
  const cache = new Map<string, T>();
  return (text) => {
    if (cache.has(text)) return cache.get(text) as T;
    const value = compute(text);
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
    cache.set(text, value);
    return value;
  };
}
