/**
 * The server the ingest, /health and findings benchmarks start: bench/server-child.ts compiled the way
 * `npm start` is (server/scripts/build.mjs, into bench/.tmp/server-dist), so the figures are
 * those of the compiled server, not of TypeScript under tsx. BENCH_TS=1 keeps the tsx path
 * (bench/server-child.ts as is), for comparison.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildBundle } from '../server/scripts/build.mjs';

const REPO = resolve(import.meta.dirname, '..');

/**
 * The V8 flags of root package.json's `start` script (`node <flags> server/scripts/start.mjs`),
 * read from it, for the child's environment (NODE_OPTIONS accepts them), so the compiled child
 * runs as `npm start` does.
 */
export const START_NODE_OPTIONS = startFlags();

function startFlags(): string {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const match = /^node (.*?) ?server\/scripts\/start\.mjs$/.exec(pkg.scripts.start);
  if (!match) throw new Error(`package.json start script not understood: ${pkg.scripts.start}`);
  return match[1];
}

/**
 * Environment for startServerChild: `extra` plus START_NODE_OPTIONS for the compiled child
 * (none under BENCH_TS=1, whose tsx child is what `npm run dev` runs).
 */
export function compiledServerEnv(extra: Record<string, string> = {}): Record<string, string> {
  if (process.env.BENCH_TS === '1') return extra;
  const inherited = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : '';
  return { ...extra, NODE_OPTIONS: `${inherited}${START_NODE_OPTIONS}` };
}

/** Path of the script startServerChild should run (a .js bundle, or the .ts child under BENCH_TS=1). Builds it first. */
export async function compiledServerScript(): Promise<string> {
  if (process.env.BENCH_TS === '1') return 'bench/server-child.ts';
  const outdir = join(REPO, 'bench/.tmp/server-dist');
  await buildBundle({ outdir, main: join(REPO, 'bench/server-child.ts') });
  return join(outdir, 'main.js');
}
