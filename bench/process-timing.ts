/**
 * Timing of a child process as a whole: wall time from spawn to exit, and the CPU time it used
 * (user + system, its own children included), which a loaded machine inflates far less than the
 * wall time. The CPU time is read from /proc/self/stat (the `cutime` and `cstime` of children
 * this process has waited for), so it is null off Linux; children must run one at a time.
 * Benchmarks only.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** ms per clock tick of /proc (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** CPU ms of the children this process has waited for so far; null without /proc. */
function childrenCpuMs(): number | null {
  try {
    // Fields after the parenthesised command name: state is field 3, cutime 16, cstime 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    return null;
  }
}

export interface ProcessTiming {
  readonly wallMs: number;
  /** null when /proc is unavailable. */
  readonly cpuMs: number | null;
}

/**
 * Runs `node args` with `env` added to this process's environment and resolves with its timing;
 * rejects when it exits with a code other than `codes`.
 */
export function timeProcess(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; codes?: readonly number[] },
): Promise<ProcessTiming> {
  const codes = options.codes ?? [0];
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, stdio: 'ignore', env: { ...process.env, ...options.env } });
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      const cpuAfter = childrenCpuMs();
      if (!codes.includes(code ?? -1)) reject(new Error(`node ${args.join(' ')} exited ${code}`));
      else resolve({ wallMs, cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore });
    });
  });
}

/** The 1-minute load average, for the note beside a figure taken on a shared machine. */
export function loadNote(): string {
  return `load ${loadavg()[0].toFixed(1)}`;
}
