/**
 * bench/server-child.ts (the real server, `BENCH_URL` once listening) with the event loop's delay
 * recorded by perf_hooks.monitorEventLoopDelay (5 ms resolution). On SIGUSR2 the child appends
 * `{at, p50, p99, max, count}` (ms) of the delays since the previous signal to
 * `<PLANWARDEN_DATA_DIR>/event-loop.jsonl` and starts a new histogram (bench/event-loop.ts reads it).
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import './server-child';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
const file = join(process.env.PLANWARDEN_DATA_DIR ?? '.', 'event-loop.jsonl');
const msOf = (ns: number) => Math.round(ns / 10_000) / 100;

process.on('SIGUSR2', () => {
  const line = { at: Date.now(), p50: msOf(histogram.percentile(50)), p99: msOf(histogram.percentile(99)), max: msOf(histogram.max), count: histogram.count };
  histogram.reset();
  appendFileSync(file, `${JSON.stringify(line)}\n`);
});
