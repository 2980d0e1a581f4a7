/**
 * bench/server-child.ts (the real server, `BENCH_URL` once listening) with the event loop's delay
 * recorded by perf_hooks.monitorEventLoopDelay (5 ms resolution). On SIGUSR2 the child appends
 * `{at, p50, p99, max, count}` (ms) of the delays since the previous signal to
 * `<PLANWARDEN_DATA_DIR>/event-loop.jsonl` and starts a new histogram (bench/event-loop.ts reads it).
 *
 * BENCH_LONG_TURNS=<file> (a diagnostic, for pinpointing with BENCH_CPU_PROF): a 1 ms timer times
 * every event-loop iteration, and on exit the child writes the iterations longer than
 * BENCH_LONG_TURNS_MS (default 15) to <file>, one `{from_us, to_us, ms, cpu_ms}` a line: from and to
 * in the monotonic microseconds of process.hrtime (the clock of a V8 CPU profile's timestamps),
 * cpu_ms the process's CPU time (user + system, every thread) over the iteration, which on a loaded
 * machine tells a long computation from a wait for a core. Each SIGUSR2 adds a line `{mark: n}`
 * (n = 1, 2, ...), so the iterations fall into the event-loop benchmark's probes.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import './server-child';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
const turnsFile = process.env.BENCH_LONG_TURNS;
const file = join(process.env.PLANWARDEN_DATA_DIR ?? '.', 'event-loop.jsonl');
const msOf = (ns: number) => Math.round(ns / 10_000) / 100;

let marks = 0;
const turns: string[] = [];

process.on('SIGUSR2', () => {
  marks += 1;
  if (turnsFile) turns.push(JSON.stringify({ mark: marks }));
  const line = { at: Date.now(), p50: msOf(histogram.percentile(50)), p99: msOf(histogram.percentile(99)), max: msOf(histogram.max), count: histogram.count };
  histogram.reset();
  appendFileSync(file, `${JSON.stringify(line)}\n`);
});

if (turnsFile) {
  const longerThanUs = Number(process.env.BENCH_LONG_TURNS_MS ?? 15) * 1000;
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const cpuUs = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  let last = nowUs();
  let lastCpu = cpuUs();
  // A timer fires once per iteration at most, so the gap between two ticks is at least one whole iteration.
  setInterval(() => {
    const now = nowUs();
    const cpu = cpuUs();
    if (now - last > longerThanUs) turns.push(JSON.stringify({ from_us: last, to_us: now, ms: (now - last) / 1000, cpu_ms: (cpu - lastCpu) / 1000 }));
    last = now;
    lastCpu = cpu;
  }, 1).unref();
  process.on('exit', () => writeFileSync(turnsFile, turns.map((t) => `${t}\n`).join('')));
}
