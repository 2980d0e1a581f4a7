import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The dashboard build: static files in dist/ that the team server serves at `/` (and the
 * desktop app loads as its renderer). No inline scripts (the served CSP has no 'unsafe-inline'
 * for scripts); relative asset URLs are not used because the SPA fallback serves index.html
 * at nested paths such as /admin/settings/sign-in.
 */
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
});
