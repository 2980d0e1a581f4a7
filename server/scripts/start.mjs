// `npm start` (root package.json): builds the dashboard when its sources are newer than its
// build (apps/web/scripts/ensure-build.mjs), rebuilds the compiled server when a source is newer
// than it (build.mjs), then runs the server in this same process: one Node start-up for all
// three (budget: `npm start` to a healthy /health within 1.0 s on an existing data folder).
import { pathToFileURL } from 'node:url';
import { ensureDashboardBuild } from '../../apps/web/scripts/ensure-build.mjs';
import { buildServer, isStale, SERVER_MAIN } from './build.mjs';

const dashboard = ensureDashboardBuild();
if (dashboard !== 0) {
  console.error(`Dashboard build failed (exit ${dashboard})`);
  process.exit(1);
}
if (isStale()) {
  console.log('Building the server (server/dist/app)…');
  try {
    await buildServer();
  } catch (error) {
    console.error(`Server build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
await import(pathToFileURL(SERVER_MAIN).href);
