import { randomUUID } from 'node:crypto';
import type { EngineContext } from '../context/engine-context';
import type { SpanDoc, SpanType } from './span-store';

export interface SpanInput {
  readonly orgId: string;
  readonly traceId: string;
  readonly type: SpanType;
  readonly durationMs: number;
  readonly keyId: string | null;
  readonly userId: string | null;
  readonly data: Record<string, unknown>;
}

/**
 * Records one span (identity-api.md "Spans"): queued in the span store's write buffer, stored
 * with the next batch. Never throws (telemetry must not fail a request).
 */
export function recordSpan(ctx: Pick<EngineContext, 'stores' | 'now' | 'log'>, input: SpanInput): void {
  try {
    ctx.stores.spans.insert(
      {
        span_id: randomUUID(),
        org_id: input.orgId,
        trace_id: input.traceId,
        type: input.type,
        timestamp: ctx.now().toISOString(),
        duration_ms: input.durationMs,
        key_id: input.keyId,
        user_id: input.userId,
        data: input.data,
      },
      ctx.log,
    );
  } catch (error) {
    ctx.log.warn({ err: error }, 'span not recorded');
  }
}

/** Presenter: identity-api.md "Span (metrics)". */
export function presentSpan(s: SpanDoc) {
  return {
    span_id: s.span_id,
    trace_id: s.trace_id,
    type: s.type,
    timestamp: s.timestamp,
    duration_ms: s.duration_ms,
    key_id: s.key_id,
    user_id: s.user_id,
    data: s.data,
  };
}

function since(ctx: Pick<EngineContext, 'now'>, days: number): string {
  return new Date(ctx.now().getTime() - days * 86_400_000).toISOString();
}

const round = (n: number) => Math.round(n * 100) / 100;

/** GET /metrics/summary over the last `days` days of the org's spans. */
export async function metricsSummary(ctx: Pick<EngineContext, 'stores' | 'now'>, orgId: string, days: number) {
  const spans = await ctx.stores.spans.since(orgId, since(ctx, days));
  const requests = spans.filter((s) => s.type === 'request');
  const byStatus: Record<string, number> = {};
  const byMethod: Record<string, number> = {};
  let errors = 0;
  let duration = 0;
  for (const s of requests) {
    const status = String(s.data.status_code ?? '');
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const method = String(s.data.method ?? '');
    byMethod[method] = (byMethod[method] ?? 0) + 1;
    if (Number(s.data.status_code) >= 400) errors += 1;
    duration += s.duration_ms;
  }
  const ingest = spans.filter((s) => s.type === 'ingest');
  const analysis = spans.filter((s) => s.type === 'analysis');
  const bySeverity: Record<string, number> = {};
  let findings = 0;
  for (const s of analysis) {
    findings += Number(s.data.finding_count ?? 0);
    for (const [sev, n] of Object.entries((s.data.severity_counts ?? {}) as Record<string, number>)) bySeverity[sev] = (bySeverity[sev] ?? 0) + n;
  }
  return {
    period_days: days,
    requests: {
      total: requests.length,
      by_status: byStatus,
      by_method: byMethod,
      error_count: errors,
      error_rate_pct: requests.length ? round((errors / requests.length) * 100) : 0,
      avg_duration_ms: requests.length ? round(duration / requests.length) : 0,
    },
    ingest: { total: ingest.length, total_resources: ingest.reduce((n, s) => n + Number(s.data.resource_count ?? 0), 0) },
    analysis: { total: analysis.length, by_severity: bySeverity, avg_findings_per_resource: analysis.length ? round(findings / analysis.length) : 0 },
  };
}

/** Per-key request counts, descending (API-key requests only; `_anon` when auth is off). */
export async function keyRequestCounts(ctx: Pick<EngineContext, 'stores' | 'now'>, orgId: string, days: number) {
  const spans = await ctx.stores.spans.since(orgId, since(ctx, days), 'request');
  const counts = new Map<string, number>();
  for (const s of spans) if (s.key_id) counts.set(s.key_id, (counts.get(s.key_id) ?? 0) + 1);
  return [...counts]
    .map(([key_id, request_count]) => ({ key_id, request_count }))
    .sort((a, b) => b.request_count - a.request_count || a.key_id.localeCompare(b.key_id));
}
