import type { Request } from 'express';
import type { z } from 'zod';
import { auditCsv } from '@planwarden/engine/audit/export';
import { presentAuditEvent } from '@planwarden/engine/audit/record';
import { keyRequestCounts, metricsSummary, presentSpan } from '@planwarden/engine/telemetry/spans';
import type { AuditEventDoc } from '@planwarden/engine/audit/audit-store';
import { route, type Policy, type RouteDef, type SpanFacts } from '../http/route';
import type { RequestContext } from '../http/request-context';
import { AuditExportQuery, AuditQuery, DaysQuery, SpanQuery } from './identity.schema';
import { parseQuery } from './shared';

function auditFilters(q: { action?: string; actor_id?: string; target_type?: string; since?: string; until?: string; limit: number; offset: number }) {
  const iso = (v?: string) => (v ? new Date(v).toISOString() : undefined);
  return { action: q.action, actorId: q.actor_id, targetType: q.target_type, since: iso(q.since), until: iso(q.until), limit: q.limit, offset: q.offset };
}

type AuditFetch = (ctx: RequestContext, req: Request, filters: ReturnType<typeof auditFilters>) => Promise<AuditEventDoc[]>;

/**
 * GET {path} and GET {path}/export over one audit source (own org, one org, or platform-wide);
 * `scope` adds the source's own query parameters to the audit filters.
 */
export function auditRouteSet(path: string, policy: Policy, fetch: AuditFetch, scope: z.ZodRawShape = {}): RouteDef[] {
  return [
    route({
      method: 'get',
      path,
      policy,
      body: 'none',
      query: AuditQuery.extend(scope),
      handler: async (ctx, req) => {
        const events = (await fetch(ctx, req, auditFilters(parseQuery(AuditQuery, req)))).map(presentAuditEvent);
        return { body: { events, total_returned: events.length } };
      },
    }),
    route({
      method: 'get',
      path: `${path}/export`,
      policy,
      body: 'none',
      query: AuditExportQuery.extend(scope),
      handler: async (ctx, req) => {
        const q = parseQuery(AuditExportQuery, req);
        const events = await fetch(ctx, req, auditFilters(q));
        const stamp = ctx.now().toISOString().slice(0, 10);
        if (q.format === 'csv') {
          return {
            contentType: 'text/csv; charset=utf-8',
            body: auditCsv(events),
            headers: { 'Content-Disposition': `attachment; filename="audit-${stamp}.csv"` },
          };
        }
        return {
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify(events.map(presentAuditEvent)),
          headers: { 'Content-Disposition': `attachment; filename="audit-${stamp}.json"` },
        };
      },
    }),
  ];
}

/**
 * identity-api.md "Metrics and audit" (admin, the caller's own org). Span log at
 * GET /metrics/spans and per-key counts at GET /metrics/keys (docs/decisions.md).
 */
export function metricsRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/metrics/summary',
      policy: 'admin',
      body: 'none',
      query: DaysQuery,
      handler: async (ctx, req) => ({ body: await metricsSummary(ctx.engine, ctx.orgId, parseQuery(DaysQuery, req).days) }),
    }),
    route({
      method: 'get',
      path: '/metrics/spans',
      policy: 'admin',
      body: 'none',
      query: SpanQuery,
      handler: async (ctx, req) => {
        const q = parseQuery(SpanQuery, req);
        const spans = await ctx.engine.stores.spans.list(ctx.orgId, { type: q.type, userId: q.user_id, keyId: q.key_id, limit: q.limit, offset: q.offset });
        return { body: spans.map(presentSpan) };
      },
    }),
    route({
      method: 'get',
      path: '/metrics/keys',
      policy: 'admin',
      body: 'none',
      query: DaysQuery,
      handler: async (ctx, req) => ({ body: await keyRequestCounts(ctx.engine, ctx.orgId, parseQuery(DaysQuery, req).days) }),
    }),
    ...auditRouteSet('/metrics/audit', 'admin', (ctx, _req, filters) => ctx.engine.stores.audit.list(ctx.orgId, filters)),
  ];
}

type Body = Record<string, unknown>;
const asObject = (v: unknown): Body => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : {});

/**
 * Ingest span facts from an ingest or analyze reply: namespace, analyzer(s), resource_count. An
 * analyze reply carries `ingested` (analyze-service.ts startAnalysis), which also covers the
 * 202 of an async job whose body names neither.
 */
function ingestFacts(req: Request, reply: { body?: unknown; ingested?: { resource_count: number; analyzers_used: string[] } }): SpanFacts {
  const body = reply.body;
  const units = Array.isArray(body) ? body : asObject(body).units;
  const used = reply.ingested?.analyzers_used ?? asObject(body).analyzers_used;
  const count =
    reply.ingested?.resource_count ?? (Array.isArray(units) ? units.length : Number(asObject(body).resource_count ?? asObject(body).total_units ?? 0));
  return {
    type: 'ingest',
    data: {
      namespace: String(req.params.namespace ?? ''),
      analyzer: req.params.analyzer_name ? String(req.params.analyzer_name) : Array.isArray(used) ? used.join(',') : 'auto',
      resource_count: count,
    },
  };
}

/** Analysis span facts from a submitted analysis payload (findings and their severities). */
function analysisFacts(req: Request, reply: { body?: unknown }): SpanFacts {
  const findings = asObject(req.body).findings;
  const list = Array.isArray(findings) ? findings.map(asObject) : [];
  const severity: Record<string, number> = {};
  for (const f of list) {
    const sev = String(f.severity ?? 'UNKNOWN');
    severity[sev] = (severity[sev] ?? 0) + 1;
  }
  // The reply is the stored resource `{hash, value: {type, name, ...}, analysis}`.
  const value = asObject(asObject(reply.body).value);
  return {
    type: 'analysis',
    data: {
      resource_type: typeof value.type === 'string' ? value.type : null,
      resource_address: typeof value.name === 'string' ? value.name : null,
      finding_count: list.length,
      severity_counts: severity,
    },
  };
}

/**
 * Attaches ingest and analysis span hooks to the analysis routes (identity-api.md "Spans": ingest
 * for every ingest and analyze, analysis for every successful analysis submission), so the
 * analysis route modules need not know about telemetry.
 */
export function withSpanHooks(routes: RouteDef[]): RouteDef[] {
  return routes.map((def) => {
    if (def.span || def.method === 'get') return def;
    if (/\/(ingest|ingest\/auto|analyze|analyze\/auto)$/.test(def.path)) return { ...def, span: ingestFacts };
    if (def.method === 'put' && def.path === '/resource/:hash/analysis') return { ...def, span: analysisFacts };
    return def;
  });
}
