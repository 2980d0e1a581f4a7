#!/usr/bin/env node
// The `planwarden` command. Runs the compiled command (server/dist/cli/main.js), rebuilt first
// when a source is newer than it, with the same build as `npm start` (server/scripts/build.mjs):
// no TypeScript compiler at run time. Only when the bundle cannot be built (no esbuild, an
// unwritable checkout) does it run the TypeScript sources through tsx. The command line itself
// is handled by server/src/cli/planwarden.ts (exit codes there; docs/ci.md).
import { pathToFileURL } from 'node:url';

/** The compiled entry to run, or null when it cannot be had (the reason goes to stderr). */
async function compiledEntry() {
  if (process.env.PLANWARDEN_CLI_FROM_SOURCE === '1') return null; // the benchmark's same-run baseline
  try {
    const { CLI_MAIN, buildCli, isStale } = await import('../scripts/build.mjs');
    if (isStale(CLI_MAIN)) {
      if (process.stderr.isTTY) process.stderr.write('planwarden: building the command (server/dist/cli)…\n');
      await buildCli();
      // esbuild's service process would outlive the command: the build is done, stop it.
      (await import('esbuild')).stop();
    }
    return CLI_MAIN;
  } catch (error) {
    process.stderr.write(`planwarden: cannot build the compiled command, running from source: ${error instanceof Error ? error.message : String(error)}\n`);
    return null;
  }
}

const entry = await compiledEntry();
if (entry) {
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/bin.ts');
}
