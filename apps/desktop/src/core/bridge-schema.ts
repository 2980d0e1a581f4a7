import { z } from 'zod';

/**
 * The one IPC channel between the renderer and the main process (docs/decisions.md
 * "Desktop: one IPC channel, no port"). The preload validates what the renderer sends and what
 * comes back; the main process validates again before injecting the request into the Express
 * app. Plain data only (structured-clone safe): no functions, no streams, no Buffers.
 */
export const BRIDGE_CHANNEL = 'planwarden:request';

/** Largest body the bridge carries, in UTF-16 code units (the server's own limit is 10 MB; margin for UTF-16 text). */
export const BRIDGE_MAX_BODY_CHARS = 24 * 1024 * 1024;

export const BridgeRequestSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
    /** An absolute path on the local API, with its query string: `/api/v1/findings?status=open`. */
    path: z
      .string()
      .min(1)
      .max(8192)
      .regex(/^\/(?!\/)[^\s#]*$/, 'path must start with a single / and hold no spaces or fragment'),
    headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string().max(8192)).default({}),
    body: z.string().max(BRIDGE_MAX_BODY_CHARS).nullable().default(null),
  })
  .strict();
export type BridgeRequest = z.input<typeof BridgeRequestSchema>;
export type ParsedBridgeRequest = z.output<typeof BridgeRequestSchema>;

export const BridgeResponseSchema = z
  .object({
    status: z.number().int().min(100).max(599),
    /** Lower-case names; a repeated header is joined with `, ` (Set-Cookie never reaches the renderer). */
    headers: z.record(z.string(), z.string()),
    body: z.string(),
  })
  .strict();
export type BridgeResponse = z.infer<typeof BridgeResponseSchema>;
