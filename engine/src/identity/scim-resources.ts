import { z } from 'zod';
import { invalidFilter, matchesScimFilter, parseScimFilter } from './scim-filter';

/** SCIM schema URNs (RFC 7643 §8.7, RFC 7644 §3). */
export const SCIM = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
} as const;

export const SCIM_MAX_PAGE = 200;

/** Query of a SCIM list (RFC 7644 §3.4.2): `filter`, 1-based `startIndex`, `count`. */
export interface ScimListQuery {
  readonly filter?: string;
  readonly startIndex?: number;
  readonly count?: number;
}

/**
 * A ListResponse of the resources matching `query.filter`, paged by startIndex (values below 1
 * are read as 1) and count (negative as 0, capped at SCIM_MAX_PAGE). BadRequestError (400,
 * invalidFilter) for a malformed filter.
 */
export function listResponse<T>(all: readonly T[], query: ScimListQuery) {
  const filter = query.filter ? parseScimFilter(query.filter) : null;
  const matching = filter ? all.filter((r) => matchesScimFilter(r, filter)) : [...all];
  const start = Math.max(1, Math.floor(query.startIndex ?? 1));
  const count = Math.min(SCIM_MAX_PAGE, Math.max(0, Math.floor(query.count ?? SCIM_MAX_PAGE)));
  const page = matching.slice(start - 1, start - 1 + count);
  return { schemas: [SCIM.list], totalResults: matching.length, startIndex: start, itemsPerPage: page.length, Resources: page };
}

/** PatchOp body (RFC 7644 §3.5.2). */
export const ScimPatchSchema = z
  .object({
    schemas: z.array(z.string()).optional(),
    Operations: z.array(z.object({ op: z.string(), path: z.string().optional(), value: z.unknown().optional() }).loose()).min(1),
  })
  .loose();

/** A SCIM error body (RFC 7644 §3.12); status as a string, as the RFC shows it. */
export function scimError(status: number, detail: string, scimType?: string) {
  return { schemas: [SCIM.error], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** Re-exported for routes that validate a filter early. */
export { invalidFilter };
