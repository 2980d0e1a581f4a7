import { describe, expect, it } from 'vitest';
import { backoffDelayMs, DEFAULT_BACKOFF_CAP_MS, defaultSleep, isRetryableStatus, withDeadline } from './retry';
import { ProviderError } from './types';

describe('backoffDelayMs (full jitter)', () => {
  it('is 0 with random 0 and just under min(cap, base * 2^attempt) with random near 1', () => {
    const almostOne = () => 0.999999;
    for (let attempt = 0; attempt < 10; attempt++) {
      const ceiling = Math.min(DEFAULT_BACKOFF_CAP_MS, 1000 * 2 ** attempt);
      expect(backoffDelayMs(attempt, 1000, undefined, () => 0)).toBe(0);
      const high = backoffDelayMs(attempt, 1000, undefined, almostOne);
      expect(high).toBeLessThan(ceiling);
      expect(high).toBeGreaterThanOrEqual(ceiling - 1);
    }
  });

  it('scales linearly with random inside the window', () => {
    expect(backoffDelayMs(0, 1000, 60_000, () => 0.5)).toBe(500);
    expect(backoffDelayMs(2, 1000, 60_000, () => 0.25)).toBe(1000);
    expect(backoffDelayMs(3, 100, 500, () => 0.5)).toBe(250);
  });

  it('never leaves [0, ceiling) even with a bad random source', () => {
    expect(backoffDelayMs(1, 1000, 60_000, () => 7)).toBe(2000);
    expect(backoffDelayMs(1, 1000, 60_000, () => -3)).toBe(0);
  });

  it('keeps a cap below the base from shrinking the first wait', () => {
    expect(backoffDelayMs(0, 30_000, 10_000, () => 0.5)).toBe(15_000);
  });

  it('stays within bounds over many real random draws', () => {
    for (let i = 0; i < 1000; i++) {
      const value = backoffDelayMs(i % 8, 250, 4_000);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(Math.min(4_000, 250 * 2 ** (i % 8)));
    }
  });

  it('rejects negative input', () => {
    expect(() => backoffDelayMs(-1, 1000)).toThrow(RangeError);
    expect(() => backoffDelayMs(0, -5)).toThrow(RangeError);
  });
});

describe('isRetryableStatus', () => {
  it('retries 408, 409, 429 and 5xx only', () => {
    expect([408, 409, 429, 500, 502, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
    expect(isRetryableStatus(null)).toBe(false);
  });
});

describe('defaultSleep', () => {
  it('waits and can be aborted', async () => {
    const started = Date.now();
    await defaultSleep(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    const controller = new AbortController();
    const pending = defaultSleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await expect(defaultSleep(10, AbortSignal.abort())).rejects.toBeDefined();
  });
});

describe('withDeadline', () => {
  const map = (err: unknown, state: { timedOut: boolean; aborted: boolean }) =>
    state.timedOut ? new ProviderError('timeout', null, true, 'timeout') : new ProviderError(err instanceof Error ? err.message : 'x', null, false);

  it('aborts the call at the deadline and reports it as timed out', async () => {
    const call = (signal: AbortSignal) => new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted by signal'))));
    await expect(withDeadline(30, undefined, call, map)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('returns the call result before the deadline', async () => {
    await expect(withDeadline(1_000, undefined, async () => 'ok', map)).resolves.toBe('ok');
  });
});
