#!/usr/bin/env node
// The `planwarden` command: registers tsx so Node runs the TypeScript sources, then hands the
// command line to server/src/cli/planwarden.ts (exit codes there; docs/ci.md).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/planwarden.ts');
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
});
