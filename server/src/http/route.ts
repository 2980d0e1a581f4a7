import type { Request } from 'express';
import type { z } from 'zod';
import type { RequestContext, Role } from './request-context';

/**
 * Who may call a route. Every route declares one, and the router refuses a route without it,
 * so the authorization-matrix test can read the declarations from the router itself.
 * - `public`: no credential.
 * - a role: an org-scoped call needing at least that role in the caller's org.
 * - `superadmin`: the /admin surface.
 * - `human`: a human session, not org-scoped (works in a locked org); an API-key principal gets
 *   `nonHumanStatus` (default 400, identity-api.md "Errors"), anonymous gets 401.
 * - `authenticated`: any principal, not org-scoped (GET /auth/me).
 */
export type Policy = 'public' | Role | 'superadmin' | 'human' | 'authenticated';

/** Every policy value; the authorization-matrix test fails on a route declaring anything else. */
export const POLICIES: readonly Policy[] = ['public', 'viewer', 'member', 'admin', 'owner', 'superadmin', 'human', 'authenticated'];

export interface Reply {
  readonly status?: number;
  readonly body?: unknown;
  /** Sends `body` (a string) with this content type instead of JSON. */
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  /**
   * Streams the body instead of sending `body` (the ingest reply echoes every unit):
   * the app sets the status, headers and `contentType` (default application/json), calls this
   * with a writer, then ends the response. Everything that can fail with an error status must
   * have failed before the first write; a failure after it aborts the connection.
   */
  readonly stream?: (out: BodyWriter) => Promise<void>;
}

/**
 * The writer a streamed reply gets (http/stream-reply.ts): `write` resolves once the socket took
 * the chunk, or once it drained when its buffer was full (backpressure); it rejects when the
 * client went away, which ends the stream.
 */
export interface BodyWriter {
  write(chunk: string): Promise<void>;
}

export type BodyKind = 'none' | 'json' | 'text';

export interface RouteDef {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path under the API base, e.g. `/jobs/:job_id`. */
  readonly path: string;
  readonly policy: Policy;
  /** For `human` routes: the status an API-key or bootstrap principal gets (default 400). */
  readonly nonHumanStatus?: 400 | 401 | 403;
  /** Raw bytes (ingest) or JSON; `none` for bodiless calls. */
  readonly body: BodyKind;
  /** Maximum body size in bytes (default: 1 MB for JSON). */
  readonly maxBodyBytes?: number | (() => number);
  /**
   * The query parameters the route accepts, as a zod object (the same schema the handler parses
   * with). The app answers 400 for a parameter the schema does not name or a value it refuses
   * (identity-api.md "Errors": unknown filter); the OpenAPI document lists them.
   */
  readonly query?: z.ZodObject;
  /** The JSON body schema the handler parses with; the OpenAPI document's request body. */
  readonly requestBody?: z.ZodType;
  readonly handler: (ctx: RequestContext, req: Request) => Promise<Reply>;
  /**
   * Optional ingest/analysis span of a successful call (identity-api.md "Spans"); the app
   * records it with the request's trace id and principal.
   */
  readonly span?: (req: Request, reply: Reply) => SpanFacts | null;
}

export interface SpanFacts {
  readonly type: 'ingest' | 'analysis';
  readonly data: Record<string, unknown>;
}

/** Declares a route (identity function with the types checked). */
export function route(def: RouteDef): RouteDef {
  return def;
}

/** Where the API is mounted (the spec's {base_url}). */
export const API_BASE = '/api/v1';
