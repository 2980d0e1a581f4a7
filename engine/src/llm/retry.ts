/**
 * Attempt policy for LLM calls: which failures are worth another attempt, how long to wait
 * between attempts, and the per-call deadline. The SDKs' own retries are disabled
 * (maxRetries: 0) so this module is the only place that decides.
 */
import { ProviderError } from './types';

/** Returns a number in [0, 1). */
export type RandomFn = () => number;
/** Waits `ms` milliseconds; rejects early if `signal` aborts. */
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Default ceiling of one backoff sleep (analysis-api.md "Limits" leaves the cap open). */
export const DEFAULT_BACKOFF_CAP_MS = 60_000;

/**
 * Full-jitter exponential backoff (AWS Architecture Blog, "Exponential Backoff And Jitter",
 * 2015): `sleep = random(0, min(cap, base * 2^attempt))`.
 *
 * @param attempt 0 for the wait after the first failed attempt, 1 after the second, ...
 * @param baseMs  `analysis.llm_retry_backoff_seconds` in milliseconds.
 * @param capMs   ceiling of one wait in milliseconds (default 60 s, never below baseMs).
 * @param random  injectable source in [0, 1) (default Math.random).
 * @returns the wait in whole milliseconds, 0 <= result < min(cap, base * 2^attempt).
 * @throws RangeError for a negative attempt or base.
 */
export function backoffDelayMs(attempt: number, baseMs: number, capMs: number = DEFAULT_BACKOFF_CAP_MS, random: RandomFn = Math.random): number {
  if (!(attempt >= 0) || !(baseMs >= 0)) throw new RangeError('attempt and baseMs must be >= 0');
  const ceiling = Math.min(Math.max(capMs, baseMs), baseMs * 2 ** attempt);
  // Clamp the random source so a faulty injection (1, 1.2, -0.1) cannot leave the interval.
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}

/**
 * Default sleep: a timer that rejects with the signal's reason when `signal` aborts.
 * @throws the abort reason (or a DOMException AbortError) when aborted.
 */
export const defaultSleep: SleepFn = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new DOMException('Aborted', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * True for HTTP statuses another attempt may cure: 408 (request timeout), 409 (lock
 * conflict), 429 (rate limit) and every 5xx (including Anthropic's 529 overloaded).
 * 400, 401, 403, 404, 422 and the like fail at once.
 */
export function isRetryableStatus(status: number | null | undefined): boolean {
  if (status == null) return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** State of one deadline-guarded call, given to the SDK error mapper. */
export interface DeadlineState {
  /** Our per-call timer fired. */
  readonly timedOut: boolean;
  /** The caller's signal aborted (job cancelled). */
  readonly aborted: boolean;
}

/**
 * Runs one provider call under a per-call deadline we own (LlmRequest.timeoutMs), also
 * following the caller's signal. `call` receives the combined signal and must pass it to
 * the SDK. Any error is handed to `mapError` together with which of the two fired, so a
 * timeout is reported as ProviderError kind 'timeout' (retryable) and a cancellation as
 * kind 'aborted' (not retryable) whatever the SDK threw.
 *
 * @param timeoutMs deadline in milliseconds for the whole call (headers and body).
 * @throws whatever `mapError` returns (a ProviderError); a pre-aborted signal throws
 *         ProviderError kind 'aborted' without calling.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  outer: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
  mapError: (err: unknown, state: DeadlineState) => ProviderError,
): Promise<T> {
  if (outer?.aborted) throw abortedError();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new ProviderError(timeoutMessage(timeoutMs), null, true, 'timeout'));
  }, timeoutMs);
  const onAbort = (): void => controller.abort(abortedError());
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    return await call(controller.signal);
  } catch (err) {
    throw mapError(err, { timedOut, aborted: outer?.aborted === true });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** The message of our own per-call timeout. */
export function timeoutMessage(timeoutMs: number): string {
  return `LLM call timed out after ${timeoutMs / 1000}s`;
}

function abortedError(): ProviderError {
  return new ProviderError('LLM call aborted', null, false, 'aborted');
}

/**
 * Common tail of the three SDK error mappers: our deadline and the caller's signal win over
 * whatever the SDK made of the abort; an error that is already a ProviderError passes through.
 * Returns null when the error needs SDK-specific handling.
 */
export function mapDeadlineError(err: unknown, state: DeadlineState, timeoutMs: number): ProviderError | null {
  if (state.aborted) return abortedError();
  if (state.timedOut) return new ProviderError(timeoutMessage(timeoutMs), null, true, 'timeout');
  if (err instanceof ProviderError) return err;
  return null;
}
