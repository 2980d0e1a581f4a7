import ipaddr from 'ipaddr.js';
import { TooManyRequestsError } from '@planwarden/engine/core/errors';
import { sha256Hex } from '@planwarden/engine/identity/secrets';
import type { AuthThrottleStore } from '@planwarden/engine/identity/throttle-store';
import type { Config } from '../config/config';

/**
 * 429 with `{detail}` and `Retry-After` in seconds (identity-api.md "Authentication":
 * brute-force protection); the error middleware sends the header.
 */
export class TooManyAttemptsError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super('Too many failed attempts; try again later', retryAfterSeconds);
  }
}

/**
 * The three counters: `login` per (source, account) pair, `second_factor` per account, `ip`
 * per source across every credential type.
 */
export type Counter = 'login' | 'second_factor' | 'ip';

/**
 * The subject a source is counted as: an IPv4 address (IPv4-mapped IPv6 unwrapped), the /64
 * of an IPv6 address (one host usually holds the whole /64), `unknown` without one.
 */
export function sourceKey(ip: string | null): string {
  if (!ip || !ipaddr.isValid(ip)) return ip ? `raw:${ip}` : 'unknown';
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/** The `login` counter's subject: a source and a lower-cased e-mail. */
export function loginSubject(ip: string | null, email: string): string {
  return `${sourceKey(ip)}|${email.toLowerCase()}`;
}

/** One counter and its subject, e.g. `['login', loginSubject(ip, email)]`. */
export type Subject = readonly [Counter, string];

/** A slot `Attempt` holds: the stored key and the block its reservation saw (for the release). */
interface Held {
  readonly counter: Counter;
  readonly key: string;
  readonly blockedUntil: string;
}

/**
 * One credential check admitted on one or more counters (BruteForceGuard.attempt): each counter's
 * slot is reserved before the check runs, and the check settles them once: `fail` counts a
 * failure on every counter, `succeed` clears `login`/`second_factor` and gives back the `ip`
 * slot, and an attempt left unsettled (a 401 that is not a guess, an error) gives every slot back.
 */
export class Attempt {
  private readonly held: Held[] = [];
  private settled = false;
  constructor(private readonly guard: BruteForceGuard) {}

  /** Reserves one more counter's slot; TooManyAttemptsError (429, Retry-After) when it has none. */
  async admit(counter: Counter, subject: string): Promise<void> {
    const held = await this.guard.reserve(counter, subject);
    if (held) this.held.push(held);
  }

  /** Counts one failure on every admitted counter (reaching a threshold starts the block). */
  async fail(): Promise<void> {
    if (this.settle()) for (const h of this.held) await this.guard.countFailure(h.counter, h.key, true);
  }

  /** A correct credential: clears the `login`/`second_factor` subjects, gives back the `ip` slot. */
  async succeed(): Promise<void> {
    if (this.settle()) for (const h of this.held) await (h.counter === 'ip' ? this.guard.store.release(h.key, h.blockedUntil) : this.guard.store.clear(h.key));
  }

  /** Not a guess (or the check broke): every slot is given back. No-op once settled. */
  async release(): Promise<void> {
    if (this.settle()) for (const h of this.held) await this.guard.store.release(h.key, h.blockedUntil);
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }
}

/**
 * Brute-force protection with exponential backoff (docs/decisions.md "Brute force"), on the
 * store so replicas share it. A subject that reaches its counter's threshold within
 * `rate_limit.window_minutes` is answered 429 for 2^(failures - threshold) minutes, capped at
 * `max_backoff_minutes`; each failure after a block doubles the next. Failures are forgotten
 * `window_minutes` after the last one (or after the block ends). Successes never count, and a
 * success clears the `login`/`second_factor` subject (never the source's `ip` counter).
 * `rate_limit.enabled` false makes every method a no-op. Subjects are stored as SHA-256.
 *
 * Password and code checks go through `attempt`, which reserves the attempt atomically in the
 * store before the (slow) check runs: however many arrive in parallel, on however many
 * replicas, at most `threshold` are checked before the block, and one at a time after it.
 * `check`/`fail` (read, then count) remain for the cheap checks of authenticate.ts.
 */
export class BruteForceGuard {
  constructor(
    readonly store: AuthThrottleStore,
    private readonly settings: () => Config['rate_limit'],
    private readonly now: () => Date,
  ) {}

  /**
   * Runs `check` as one admitted attempt on `subjects` (reserved in order; the first without a
   * free slot throws TooManyAttemptsError, 429 with Retry-After, and gives back the others).
   * `check` settles the attempt with `fail` or `succeed`; whatever it leaves unsettled
   * (including when it throws) is released. Returns what `check` returns.
   */
  async attempt<T>(subjects: readonly Subject[], check: (attempt: Attempt) => Promise<T>): Promise<T> {
    const attempt = new Attempt(this);
    try {
      for (const [counter, subject] of subjects) await attempt.admit(counter, subject);
      return await check(attempt);
    } finally {
      // A failed release leaves a slot used until the record expires: never worth masking the answer.
      await attempt.release().catch(() => {});
    }
  }

  /** Throws TooManyAttemptsError (429, Retry-After) while `subject` is blocked. */
  async check(counter: Counter, subject: string): Promise<void> {
    if (!this.settings().enabled) return;
    const now = this.now();
    const doc = await this.store.get(this.key(counter, subject), now.toISOString());
    if (!doc?.blocked_until) return;
    const waitMs = Date.parse(doc.blocked_until) - now.getTime();
    if (waitMs > 0) throw new TooManyAttemptsError(Math.ceil(waitMs / 1000));
  }

  /** Counts one failure of `subject` that `check` let through; reaching the threshold starts (or doubles) the block. */
  async fail(counter: Counter, subject: string): Promise<void> {
    if (this.settings().enabled) await this.countFailure(counter, this.key(counter, subject), false);
  }

  /** Forgets `subject`'s failures (a successful login or second factor). */
  async reset(counter: Exclude<Counter, 'ip'>, subject: string): Promise<void> {
    if (this.settings().enabled) await this.store.clear(this.key(counter, subject));
  }

  /** Nothing to release: the counters live in the store. Kept for the server's shutdown path. */
  shutdown(): void {}

  /**
   * Reserves one slot of `subject` (Attempt.admit): null when protection is off; throws
   * TooManyAttemptsError with the wait until the block ends or, when the slots are held by
   * attempts still in flight, the block those would start.
   */
  async reserve(counter: Counter, subject: string): Promise<Held | null> {
    const s = this.settings();
    if (!s.enabled) return null;
    const key = this.key(counter, subject);
    const now = this.now().getTime();
    const threshold = this.threshold(counter, s);
    const reservation = await this.store.reserve(key, iso(now), iso(now + s.window_minutes * 60_000), threshold);
    if (reservation.admitted) return { counter, key, blockedUntil: reservation.doc.blocked_until as string };
    const doc = reservation.doc;
    const waitMs = doc?.blocked_until ? Date.parse(doc.blocked_until) - now : 0;
    const pendingMs = doc ? this.delayMs(Math.max(doc.failures + 1, threshold), threshold, s) : 1000;
    throw new TooManyAttemptsError(Math.ceil((waitMs > 0 ? waitMs : pendingMs) / 1000));
  }

  /** Counts one failure under the stored `key`; the failure that reaches the threshold blocks. */
  async countFailure(counter: Counter, key: string, reserved: boolean): Promise<void> {
    const s = this.settings();
    const now = this.now().getTime();
    const windowMs = s.window_minutes * 60_000;
    const failures = await this.store.addFailure(key, iso(now), iso(now + windowMs), reserved);
    const threshold = this.threshold(counter, s);
    if (failures < threshold) return;
    const delayMs = this.delayMs(failures, threshold, s);
    await this.store.setBlock(key, failures, iso(now + delayMs), iso(now + delayMs + windowMs), threshold - 1);
  }

  private delayMs(failures: number, threshold: number, s: Config['rate_limit']): number {
    return Math.min(2 ** (failures - threshold), s.max_backoff_minutes) * 60_000;
  }

  private key(counter: Counter, subject: string): string {
    return sha256Hex(`${counter}\n${subject}`);
  }

  private threshold(counter: Counter, s: Config['rate_limit']): number {
    if (counter === 'login') return s.failed_logins_per_account;
    return counter === 'second_factor' ? s.second_factor_attempts_per_account : s.failed_credentials_per_ip;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
