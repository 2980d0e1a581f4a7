import type { Request } from 'express';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '@planwarden/engine/core/errors';
import { decodeText } from '@planwarden/engine/core/decode';
import type { RequestContext } from '../http/request-context';

/**
 * Path `{org_id}` must be the caller's own org; another org answers 404 exactly like a missing
 * one (analysis-api.md "What the service does" item 1).
 */
export function requireOwnOrg(ctx: RequestContext, orgId: string): void {
  if (orgId !== ctx.orgId) throw new NotFoundError('Organization not found');
}

/** Parses `req.query` with `schema`; failures are 422 naming the parameter. */
export function parseQuery<T extends z.ZodType>(schema: T, req: Request): z.infer<T> {
  const result = schema.safeParse(req.query);
  if (!result.success) {
    throw new ValidationError(result.error.issues.map((i) => `query ${i.path.join('.')}: ${i.message}`).join('; '));
  }
  return result.data;
}

/** Parses a JSON body with `schema`; failures are 422 naming the field. */
export function parseBody<T extends z.ZodType>(schema: T, req: Request): z.infer<T> {
  const result = schema.safeParse(req.body ?? {});
  if (!result.success) {
    throw new ValidationError(result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  }
  return result.data;
}

/** A raw ingest body as text: UTF-8, UTF-8 with BOM and UTF-16 (LE/BE, BOM) accepted. Empty = 422. */
export function rawText(req: Request): string {
  const body: unknown = req.body;
  const text = Buffer.isBuffer(body) ? decodeText(body) : typeof body === 'string' ? body : '';
  if (text.trim().length === 0) throw new ValidationError('The request body is empty');
  return text;
}

/** Path parameter as a string (Express 5 may give arrays for wildcards). */
export function param(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : String(value ?? '');
}

export const booleanQuery = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/**
 * The `query` of a route that takes no query parameters: the app answers 400 for any parameter
 * but the credential the auth layer reads (identity-api.md "Errors": unknown filter).
 */
export const NO_QUERY = z.object({});

/**
 * A `since`/`until` query value (identity-api.md "Metrics and audit": ISO-8601, inclusive): a
 * date-time with `Z` or an offset, or a plain date `YYYY-MM-DD` read in UTC. Returns the ISO
 * instant string: a plain date is its first millisecond for `bound` 'start' (since) and its last
 * for 'end' (until), so both bounds include the whole day. Anything else fails validation (422).
 */
export function instantQuery(bound: 'start' | 'end') {
  return z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((v) => {
    if (v.includes('T')) return new Date(v).toISOString();
    return `${v}T${bound === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`;
  });
}

/** Pagination query fields (limit bounded as the spec's page sizes). */
export function pageQuery(maxLimit: number, defaultLimit: number) {
  return {
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
    offset: z.coerce.number().int().min(0).default(0),
  };
}
