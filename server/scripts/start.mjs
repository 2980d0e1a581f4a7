// `npm start` (root package.json): rebuilds the compiled server when a source is newer than it
// (build.mjs), then runs it in this same process: one Node start-up instead of a `prestart`
// process plus the server's (issue 18: `npm start` to a healthy /health within 1.5 s).
// The dashboard's build check stays in `prestart` (apps/web/scripts/ensure-build.mjs).
import { pathToFileURL } from 'node:url';
import { buildServer, isStale, SERVER_MAIN } from './build.mjs';

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
