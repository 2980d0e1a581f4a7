import ipaddr from 'ipaddr.js';
import { TooManyRequestsError } from '@planwarden/engine/errors';
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

/**
 * Brute-force protection with exponential backoff (docs/decisions.md "Brute force"), on the
 * store so replicas share it. A subject that reaches its counter's threshold within
 * `rate_limit.window_minutes` is answered 429 for 2^(failures - threshold) minutes, capped at
 * `max_backoff_minutes`; each failure after a block doubles the next. Failures are forgotten
 * `window_minutes` after the last one (or after the block ends). Successes never count, and a
 * success clears the `login`/`second_factor` subject (never the source's `ip` counter).
 * `rate_limit.enabled` false makes every method a no-op. Subjects are stored as SHA-256.
 */
export class BruteForceGuard {
  constructor(
    private readonly store: AuthThrottleStore,
    private readonly settings: () => Config['rate_limit'],
    private readonly now: () => Date,
  ) {}

  /** Throws TooManyAttemptsError (429, Retry-After) while `subject` is blocked. */
  async check(counter: Counter, subject: string): Promise<void> {
    if (!this.settings().enabled) return;
    const now = this.now();
    const doc = await this.store.get(this.key(counter, subject), now.toISOString());
    if (!doc?.blocked_until) return;
    const waitMs = Date.parse(doc.blocked_until) - now.getTime();
    if (waitMs > 0) throw new TooManyAttemptsError(Math.ceil(waitMs / 1000));
  }

  /** Counts one failure of `subject`; reaching the threshold starts (or doubles) the block. */
  async fail(counter: Counter, subject: string): Promise<void> {
    const s = this.settings();
    if (!s.enabled) return;
    const key = this.key(counter, subject);
    const now = this.now().getTime();
    const windowMs = s.window_minutes * 60_000;
    const failures = await this.store.addFailure(key, iso(now), iso(now + windowMs));
    const threshold = this.threshold(counter, s);
    if (failures < threshold) return;
    const delayMs = Math.min(2 ** (failures - threshold), s.max_backoff_minutes) * 60_000;
    await this.store.setBlock(key, failures, iso(now + delayMs), iso(now + delayMs + windowMs));
  }

  /** Forgets `subject`'s failures (a successful login or second factor). */
  async reset(counter: Exclude<Counter, 'ip'>, subject: string): Promise<void> {
    if (this.settings().enabled) await this.store.clear(this.key(counter, subject));
  }

  /** Nothing to release: the counters live in the store. Kept for the server's shutdown path. */
  shutdown(): void {}

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
