import { z } from 'zod';

/** Ingest bodies: 10 MB (analysis-api.md "Limits"). */
export const INGEST_MAX_BYTES = 10 * 1024 * 1024;

/** The `{namespace}` path segment; the services check its pattern and reserved names (422). */
export const NamespaceSchema = z.string().min(1).max(128);

/** GET /{namespace}/resource/next query. */
export const NextResourceQuerySchema = z.object({ rule_type: z.string().min(1).max(64).optional() });

/** GET /resource/{hash} query. */
export const ResourceQuerySchema = z.object({ filter: z.enum(['value', 'analysis', 'hash']).optional() });
