import type { EngineContext } from './engine-context';

/** Who performs an identity action, as the audit log records it (identity-api.md "Audit event"). */
export interface Actor {
  readonly userId: string | null;
  readonly keyId: string | null;
  readonly email: string | null;
  readonly isSuperadmin: boolean;
  readonly ip: string | null;
  readonly requestId: string | null;
}

/** What every identity service receives: the engine (stores, clock) and the acting principal. */
export interface IdentityCtx {
  readonly engine: EngineContext;
  readonly actor: Actor;
}

/** The context's clock as an ISO timestamp. */
export function isoNow(ctx: IdentityCtx): string {
  return ctx.engine.now().toISOString();
}
