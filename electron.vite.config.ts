import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

/**
 * The desktop app's build (issue 10): the main process (apps/desktop/src/main: the local engine
 * and the same Express app as the team server, bundled), the sandboxed preload (one CommonJS
 * file, everything inlined: a sandboxed preload can require only `electron`), and the renderer
 * (the apps/web dashboard, with the IPC transport installed first). Output: apps/desktop/out.
 */
const desktop = resolve(import.meta.dirname, 'apps/desktop');
const engine = resolve(import.meta.dirname, 'engine/src');

/**
 * The ingest worker thread (engine/src/ingest/worker-pool.ts) starts `./worker.mjs` beside the
 * bundle and imports the compiled body named by `__PLANWARDEN_INGEST_WORKER_IMPL__`: copy the
 * plain-ESM entry next to out/main/index.js (the body is a second rollup input).
 */
function ingestWorkerEntry(): Plugin {
  return {
    name: 'planwarden-ingest-worker',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'worker.mjs', source: readFileSync(resolve(engine, 'ingest/worker.mjs'), 'utf8') });
      // The report-template sandbox (engine/src/report/template-sandbox.ts) works the same way.
      this.emitFile({ type: 'asset', fileName: 'template-sandbox-worker.mjs', source: readFileSync(resolve(engine, 'report/template-sandbox-worker.mjs'), 'utf8') });
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
    plugins: [ingestWorkerEntry()],
    define: {
      __PLANWARDEN_INGEST_WORKER_IMPL__: JSON.stringify('./ingest-worker-impl.js'),
      __PLANWARDEN_TEMPLATE_WORKER_IMPL__: JSON.stringify('./template-sandbox-impl.js'),
    },
    build: {
      outDir: resolve(desktop, 'out/main'),
      // Native and driver modules stay in node_modules (electron-builder rebuilds better-sqlite3 for Electron).
      externalizeDeps: false,
      rollupOptions: {
        input: {
          index: resolve(desktop, 'src/main/index.ts'),
          'ingest-worker-impl': resolve(engine, 'ingest/worker-impl.ts'),
          'template-sandbox-impl': resolve(engine, 'report/template-sandbox-impl.ts'),
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
