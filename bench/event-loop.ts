/**
 * The event-loop side of the soak and event-loop benchmarks: the compiled bench/soak-child.ts
 * (built the way `npm start` is, like bench/compiled-server.ts does for bench/server-child.ts)
 * and the delay figures it records on request.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildBundle } from '../server/scripts/build.mjs';
import type { ServerChild } from './lib';

const REPO = resolve(import.meta.dirname, '..');

/** Event-loop delay since the previous sample, in ms (monitorEventLoopDelay, 5 ms resolution). */
export interface LoopDelay {
  at: number;
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** Path of the soak child to run: its compiled bundle (BENCH_TS=1: the .ts under tsx). Builds it first. */
export async function soakServerScript(): Promise<string> {
  if (process.env.BENCH_TS === '1') return 'bench/soak-child.ts';
  const outdir = join(REPO, 'bench/.tmp/soak-dist');
  await buildBundle({ outdir, main: join(REPO, 'bench/soak-child.ts') });
  return join(outdir, 'main.js');
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * The child's event-loop delay since its previous sample (and a fresh histogram from now on):
 * signals it and waits for the line it appends.
 */
export async function loopDelay(server: Pick<ServerChild, 'pid' | 'dataDir'>): Promise<LoopDelay> {
  const file = join(server.dataDir, 'event-loop.jsonl');
  const before = lines(file).length;
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 2000; i += 1) {
    const now = lines(file);
    if (now.length > before) return JSON.parse(now[now.length - 1]) as LoopDelay;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the server child wrote no event-loop sample within 10 s');
}
