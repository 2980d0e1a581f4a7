import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { BadRequestError, ValidationError } from '@planwarden/engine/core/errors';

/**
 * Query parameters every route accepts whatever it declares: the ones the auth layer reads
 * (`api_key`, server/src/auth/authenticate.ts presentedApiKey).
 */
export const AUTH_QUERY_PARAMETERS: readonly string[] = ['api_key'];

const describe = (issues: readonly z.core.$ZodIssue[]) => issues.map((i) => `query ${i.path.join('.')}: ${i.message}`).join('; ');

/** A schema built with z.looseObject (a third party chooses the parameters, e.g. a redirect back). */
function acceptsUnknownKeys(schema: z.ZodObject): boolean {
  const catchall = schema._zod.def.catchall;
  return catchall !== undefined && catchall._zod.def.type !== 'never';
}

/**
 * Checks `query` (Express's `req.query`) against a route's declared `query` schema
 * (route.ts RouteDef.query):
 * - a parameter the schema does not name (other than AUTH_QUERY_PARAMETERS) → BadRequestError
 *   (400, identity-api.md "Errors": unknown filter) naming it and the accepted ones;
 * - a value outside a filter's enumerated set (zod `invalid_value`, e.g. `status=closed`) →
 *   BadRequestError (400, unknown filter value);
 * - any other refused value (out of range, not a number, malformed date) → ValidationError
 *   (422, "schema or value validation failure").
 */
export function checkQuery(schema: z.ZodObject, query: Record<string, unknown>): void {
  if (!acceptsUnknownKeys(schema)) {
    const known = new Set([...Object.keys(schema.shape), ...AUTH_QUERY_PARAMETERS]);
    const unknown = Object.keys(query).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      const accepted = Object.keys(schema.shape);
      throw new BadRequestError(
        `unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}; ` +
          (accepted.length > 0 ? `accepted: ${accepted.join(', ')}` : 'this endpoint takes no query parameters'),
      );
    }
  }
  const result = schema.safeParse(query);
  if (result.success) return;
  const refused = result.error.issues.filter((i) => i.code === 'invalid_value');
  if (refused.length > 0) throw new BadRequestError(`unknown filter value: ${describe(refused)}`);
  throw new ValidationError(describe(result.error.issues));
}

/** Express middleware running checkQuery for a route that declares `query`; a no-op otherwise. */
export function queryValidator(schema: z.ZodObject | undefined): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!schema) {
      next();
      return;
    }
    try {
      checkQuery(schema, req.query as Record<string, unknown>);
      next();
    } catch (error) {
      next(error);
    }
  };
}
