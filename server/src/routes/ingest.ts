import { recordIngest, type RecordedIngest } from '@planwarden/engine/analysis/ingest-service';
import { WORKER_MIN_CHARS } from '@planwarden/engine/ingest/worker-pool';
import { AnalysisPayloadSchema } from '@planwarden/engine/core/payload';
import { getResource, listNamespaceResources, listNamespaces, nextResource, submitAnalysis } from '@planwarden/engine/analysis/resource-service';
import type { Request } from 'express';
import { route, type BodyWriter, type RouteDef } from '../http/route';
import { INGEST_MAX_BYTES, NextResourceQuerySchema, ResourceQuerySchema } from './ingest.schema';
import { writeJsonArray, writeJsonArrayPages, writeJsonPieces } from './json-slices';
import { NO_QUERY, param, parseQuery, rawText } from './shared';

/** Re-exported for existing importers; defined in ingest.schema.ts. */
export { INGEST_MAX_BYTES };

/**
 * The request body for recordIngest, with the request's reference to it dropped (the
 * server holds one copy of a 10 MB ingest, and not for longer than needed): a large body as its
 * bytes (decoded where it is split: in the ingest worker, off the event loop), a small one
 * decoded here (shared.ts rawText: 422 when empty).
 */
function takeBody(req: Request): string | Uint8Array {
  const body: unknown = req.body;
  const taken = Buffer.isBuffer(body) && body.length >= WORKER_MIN_CHARS ? body : rawText(req);
  req.body = undefined;
  return taken;
}

/**
 * The 201 reply of an ingest: `prefix + JSON.stringify(units) + suffix`, streamed,
 * from the worker's JSON text when it recorded the units, else unit by unit.
 */
function unitsReply(recorded: RecordedIngest, prefix = '', suffix = ''): (out: BodyWriter) => Promise<void> {
  return (out) => (recorded.json ? writeJsonPieces(recorded.json, out, prefix, suffix) : writeJsonArray(recorded.units ?? [], out, prefix, suffix));
}

/**
 * analysis-api.md "Ingest and client-led analysis". The three paths the spec leaves open are
 * GET /resource/{hash}, GET /namespaces and GET /{namespace}/resources (docs/decisions.md).
 */
export function ingestRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/namespaces',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await listNamespaces(ctx.engine, ctx.orgId) }),
    }),
    route({
      method: 'get',
      path: '/resource/:hash',
      policy: 'member',
      body: 'none',
      query: ResourceQuerySchema,
      handler: async (ctx, req) => {
        const { filter } = parseQuery(ResourceQuerySchema, req);
        return { body: await getResource(ctx.engine, ctx.orgId, param(req, 'hash'), filter ?? null) };
      },
    }),
    route({
      method: 'put',
      path: '/resource/:hash/analysis',
      policy: 'member',
      body: 'json',
      requestBody: AnalysisPayloadSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await submitAnalysis(ctx.engine, ctx.orgId, param(req, 'hash'), req.body) }),
    }),
    route({
      method: 'post',
      path: '/:namespace/ingest/auto',
      policy: 'member',
      body: 'text',
      query: NO_QUERY,
      maxBodyBytes: INGEST_MAX_BYTES,
      handler: async (ctx, req) => {
        const recorded = await recordIngest(ctx.engine, ctx.orgId, null, param(req, 'namespace'), takeBody(req));
        const { analyzers_used, detections } = recorded;
        // Same bytes as JSON.stringify({units, analyzers_used, detections}), streamed.
        const tail = JSON.stringify({ analyzers_used, detections }).slice(1);
        const stream = unitsReply(recorded, '{"units":', `,${tail}`);
        return { status: 201, stream, ingested: { resource_count: recorded.hashes.length, analyzers_used } };
      },
    }),
    route({
      method: 'get',
      path: '/:namespace/resource/next',
      policy: 'member',
      body: 'none',
      query: NextResourceQuerySchema,
      handler: async (ctx, req) => {
        const { rule_type } = parseQuery(NextResourceQuerySchema, req);
        const next = await nextResource(ctx.engine, ctx.orgId, param(req, 'namespace'), rule_type ?? null);
        if (next === null) return { status: 208, body: { detail: 'All resources in the namespace are analysed' } };
        return { body: next };
      },
    }),
    route({
      method: 'get',
      path: '/:namespace/resources',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const pages = await listNamespaceResources(ctx.engine, ctx.orgId, param(req, 'namespace'));
        // Same bytes as JSON.stringify(resources), read and streamed a page at a time: megabytes read or serialised in one go would hold the event loop.
        return { stream: (out) => writeJsonArrayPages(pages, out) };
      },
    }),
    route({
      method: 'post',
      path: '/:analyzer_name/:namespace/ingest',
      policy: 'member',
      body: 'text',
      query: NO_QUERY,
      maxBodyBytes: INGEST_MAX_BYTES,
      handler: async (ctx, req) => {
        const analyzer = param(req, 'analyzer_name');
        const recorded = await recordIngest(ctx.engine, ctx.orgId, analyzer, param(req, 'namespace'), takeBody(req));
        // Same bytes as JSON.stringify(units), streamed; `ingested` feeds the ingest span (routes/metrics.ts).
        return { status: 201, stream: unitsReply(recorded), ingested: { resource_count: recorded.hashes.length, analyzers_used: [analyzer] } };
      },
    }),
  ];
}
