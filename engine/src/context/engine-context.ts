import type { Logger } from '../core/logger';
import type { Analyzer } from '../core/unit';
import type { SecretBox } from '../llm/secret-box';
import type { EgressPolicy } from '../net/egress';
import type { Store } from '../store/port';

/**
 * Every typed store, built once on one storage port by the composition root (engine/src/stores.ts).
 * Services call only these. This layer names no store of the layers above it: each typed store's
 * module adds its own member by declaration merging (`declare module '../context/engine-context'
 * { interface Stores { ... } }`, docs/architecture.md "Layers"), so every import points down.
 */
export interface Stores {
  readonly store: Store;
  /** Seals secrets at rest (TOTP secrets, LLM keys). */
  readonly box: SecretBox;
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

/** ISO-8601 UTC timestamp of the context's clock. */
export function nowIso(ctx: Pick<EngineContext, 'now'>): string {
  return ctx.now().toISOString();
}
