import { MemoryStore } from 'express-rate-limit';
import { AppError } from '@planwarden/engine/errors';
import type { Config } from '../config/config';

/** 429 with `{detail}` (identity-api.md "Authentication": brute-force protection). */
export class TooManyAttemptsError extends AppError {
  constructor(detail = 'Too many failed attempts; try again later') { super(429, detail); }
}

type Counter = 'login' | 'second_factor' | 'ip';

/**
 * Failure counters on express-rate-limit's MemoryStore (fixed windows of
 * `rate_limit.window_minutes`): failed logins per account, second-factor attempts per account,
 * failed credentials per source IP across every credential type. Disabled unless
 * `rate_limit.enabled`; then every method is a no-op.
 */
export class BruteForceGuard {
  private readonly stores = new Map<Counter, MemoryStore>();
  private readonly limits: Record<Counter, number>;

  constructor(private readonly settings: Config['rate_limit']) {
    this.limits = { login: settings.failed_logins_per_account, second_factor: settings.second_factor_attempts_per_account, ip: settings.failed_credentials_per_ip };
    if (!settings.enabled) return;
    for (const name of ['login', 'second_factor', 'ip'] as const) {
      const store = new MemoryStore();
      store.init({ windowMs: settings.window_minutes * 60_000 } as Parameters<MemoryStore['init']>[0]);
      this.stores.set(name, store);
    }
  }

  /** Throws TooManyAttemptsError when `key` has used up its failures in this window. */
  async check(counter: Counter, key: string | null): Promise<void> {
    const store = this.stores.get(counter);
    if (!store || key === null) return;
    const info = await store.get(`${counter}:${key}`);
    if (info && info.totalHits >= this.limits[counter]) throw new TooManyAttemptsError();
  }

  /** Counts one failure of `key`. */
  async fail(counter: Counter, key: string | null): Promise<void> {
    const store = this.stores.get(counter);
    if (store && key !== null) await store.increment(`${counter}:${key}`);
  }

  /** Forgets `key`'s failures (a successful login or second factor). */
  async reset(counter: Counter, key: string | null): Promise<void> {
    const store = this.stores.get(counter);
    if (store && key !== null) await store.resetKey(`${counter}:${key}`);
  }

  shutdown(): void {
    for (const store of this.stores.values()) store.shutdown();
  }
}
