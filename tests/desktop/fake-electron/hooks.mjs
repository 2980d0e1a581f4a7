// Module resolution hook: `electron` is the stand-in beside this file; everything else as usual.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: new URL('./electron.mjs', import.meta.url).href, shortCircuit: true };
  return nextResolve(specifier, context);
}
