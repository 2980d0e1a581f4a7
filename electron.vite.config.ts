import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { WORKER_ENTRIES, workerDefines } from './server/scripts/worker-entries.mjs';

/**
 * The desktop app's build (issue 10): the main process (apps/desktop/src/main: the local engine
 * and the same Express app as the team server, bundled), the sandboxed preload (one CommonJS
 * file, everything inlined: a sandboxed preload can require only `electron`), and the renderer
 * (the apps/web dashboard, with the IPC transport installed first). Output: apps/desktop/out.
 */
const desktop = resolve(import.meta.dirname, 'apps/desktop');

/**
 * The worker threads (engine/src/ingest/worker-pool.ts, engine/src/report/template-sandbox.ts),
 * from the one list the server build also reads (server/scripts/worker-entries.mjs): each body is
 * a rollup input named as the list says, `define`d by its URL, and each plain-ESM thread entry is
 * copied next to out/main/index.js under its own name.
 */
function workerThreadEntries(): Plugin {
  return {
    name: 'planwarden-worker-threads',
    generateBundle() {
      for (const w of WORKER_ENTRIES) this.emitFile({ type: 'asset', fileName: basename(w.thread), source: readFileSync(w.thread, 'utf8') });
    },
  };
}

/**
 * electron-vite makes the renderer's asset URLs relative (`./assets/…`) for file:// loading; the
 * desktop serves the renderer from `app://planwarden/` and the dashboard has nested client routes
 * (`/jobs/<id>`), where a relative URL would point into `/jobs/assets/`. Absolute `/assets/…`
 * (this plugin's config runs after electron-vite's preset) load from any route.
 */
function rootRelativeAssets(): Plugin {
  return { name: 'planwarden-root-relative-assets', config: () => ({ base: '/' }) };
}

export default defineConfig({
  main: {
    plugins: [workerThreadEntries()],
    define: workerDefines(),
    build: {
      outDir: resolve(desktop, 'out/main'),
      // Native and driver modules stay in node_modules (electron-builder rebuilds better-sqlite3 for Electron).
      externalizeDeps: false,
      rollupOptions: {
        input: {
          index: resolve(desktop, 'src/main/index.ts'),
          ...Object.fromEntries(WORKER_ENTRIES.map((w) => [w.name, w.body])),
        },
        external: ['electron', 'better-sqlite3', 'mongodb', /^node:/],
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(desktop, 'out/preload'),
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(desktop, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(desktop, 'src/renderer'),
    plugins: [react(), rootRelativeAssets()],
    build: {
      outDir: resolve(desktop, 'out/renderer'),
      emptyOutDir: true,
      modulePreload: { polyfill: false },
      chunkSizeWarningLimit: 600,
      rollupOptions: { input: { index: resolve(desktop, 'src/renderer/index.html') } },
    },
  },
});
