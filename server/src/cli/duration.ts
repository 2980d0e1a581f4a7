/** `--timeout` values: an integer with an optional unit; a bare number is seconds. */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** The longest timeout accepted: a day (timers cannot wait beyond ~24.8 days; no run needs more). */
export const MAX_TIMEOUT_MS = UNIT_MS.h * 24;

/**
 * Milliseconds of a duration written `90`, `90s`, `10m`, `1h` or `500ms` (integer, bare = seconds),
 * from 1 ms to MAX_TIMEOUT_MS. Returns null for anything else (0, negative, fractional, unknown
 * unit, beyond a day).
 */
export function parseDuration(value: string): number | null {
  const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(value.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS];
  return ms >= 1 && ms <= MAX_TIMEOUT_MS ? ms : null;
}

/** `ms` in the largest unit that divides it: 1800000 → `30m`, 90000 → `90s`, 1500 → `1500ms`. */
export function formatDuration(ms: number): string {
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
