// The worker threads a bundle needs beside its main file: the server's (compiled
// `npm start`, build.mjs) and the desktop main process's (electron.vite.config.ts), one list.
// Each thread starts a plain-ESM entry (`thread`, copied as is next to the bundle) which imports
// the compiled body whose URL the bundler `define`s as `define` (see worker-pool.ts and
// template-sandbox.ts); `body` is that body's TypeScript source, bundled as entry `name`.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// From import.meta.url, not import.meta.dirname: electron-vite bundles its config with this module
// inlined and rewrites only import.meta.url (to this file's own URL).
const engine = fileURLToPath(new URL('../../engine/src', import.meta.url));

/** @type {readonly { name: string; body: string; thread: string; define: string }[]} */
export const WORKER_ENTRIES = [
  {
    name: 'ingest-worker-impl',
    body: resolve(engine, 'ingest/worker-impl.ts'),
    thread: resolve(engine, 'ingest/worker.mjs'),
    define: '__PLANWARDEN_INGEST_WORKER_IMPL__',
  },
  {
    name: 'template-sandbox-impl',
    body: resolve(engine, 'report/template-sandbox-impl.ts'),
    thread: resolve(engine, 'report/template-sandbox-worker.mjs'),
    define: '__PLANWARDEN_TEMPLATE_WORKER_IMPL__',
  },
];

/** esbuild/Vite `define` entries: each body's URL relative to the bundle (`./<name>.js`). */
export function workerDefines() {
  return Object.fromEntries(WORKER_ENTRIES.map((w) => [w.define, JSON.stringify(`./${w.name}.js`)]));
}
