/**
 * Runs once before any test file: builds the compiled server (server/scripts/build.mjs) when it is
 * stale, so the test files that start it (`entry: 'compiled'`) never build it concurrently on a
 * fresh clone.
 */
import { buildServer, isStale } from '../server/scripts/build.mjs';

export default async function setup(): Promise<void> {
  if (isStale()) await buildServer();
}
