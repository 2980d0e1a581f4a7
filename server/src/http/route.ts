import type { Request } from 'express';
import type { RequestContext, Role } from './request-context';

/**
 * Who may call a route. Every route declares one, and the router refuses a route without it,
 * so the authorization-matrix test can read the declarations from the router itself.
 * - `public`: no credential.
 * - a role: an org-scoped call needing at least that role in the caller's org.
 * - `superadmin`: the /admin surface.
 */
export type Policy = 'public' | Role | 'superadmin';

export interface Reply {
  readonly status?: number;
  readonly body?: unknown;
  /** Sends `body` (a string) with this content type instead of JSON. */
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

export type BodyKind = 'none' | 'json' | 'text';

export interface RouteDef {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path under the API base, e.g. `/jobs/:job_id`. */
  readonly path: string;
  readonly policy: Policy;
  /** Raw bytes (ingest) or JSON; `none` for bodiless calls. */
  readonly body: BodyKind;
  /** Maximum body size in bytes (default: 1 MB for JSON). */
  readonly maxBodyBytes?: number | (() => number);
  readonly handler: (ctx: RequestContext, req: Request) => Promise<Reply>;
}

/** Declares a route (identity function with the types checked). */
export function route(def: RouteDef): RouteDef {
  return def;
}
