import type { Analyzer } from './analyzers/types';
import type { EgressPolicy } from './net/egress';
import type { Stores } from './stores';

/** Minimal structured logger (pino-compatible). */
export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

export interface AnalyzerRegistry {
  list(): readonly Analyzer[];
  get(name: string): Analyzer | undefined;
}

/**
 * What every engine service receives: the typed stores, the analyzer registry and a clock
 * (injectable so tests use fake time). Per-request facts (org, principal) are arguments.
 */
export interface EngineContext {
  readonly stores: Stores;
  readonly analyzers: AnalyzerRegistry;
  readonly now: () => Date;
  readonly log: Logger;
  /** Outbound requests to tenant-set URLs (net/egress.ts); absent = STRICT_EGRESS (no allowlist). */
  readonly egress?: EgressPolicy;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };

/** ISO-8601 UTC timestamp of the context's clock. */
export function nowIso(ctx: Pick<EngineContext, 'now'>): string {
  return ctx.now().toISOString();
}
