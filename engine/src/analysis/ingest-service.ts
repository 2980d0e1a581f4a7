import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import type { Analyzer, AnalysisUnit } from '../analyzers/types';
import type { EngineContext } from '../context';
import { NotImplementedError, ValidationError } from '../errors';
import { autoRoute, type AutoRouteResult } from '../ingest/auto-route';
import { ingestPoolSize, runIngestJob, WORKER_MIN_CHARS } from '../ingest/worker-pool';
import { analyzerEnabledPredicate, requireAnalyzer } from './analyzer-access';
import type { DetectionEntry } from './job-store';

/** Namespace names: 1-128 of [A-Za-z0-9._-], starting alphanumeric; never a reserved top-level path. */
const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const RESERVED_NAMESPACES = new Set([
  'analyzers', 'jobs', 'findings', 'feedback', 'models', 'orgs', 'auth', 'admin', 'resource', 'resources',
  'namespaces', 'reports', 'health', 'rule-health', 'rule-proposals', 'metrics', 'invite', 'integrations',
  'notifications', 'scim', 'docs', 'redoc', 'mcp',
]);

/** Throws ValidationError (422) for a namespace that cannot be stored or would shadow a fixed path. */
export function assertNamespace(namespace: string): void {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new ValidationError('namespace must be 1-128 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  if (RESERVED_NAMESPACES.has(namespace)) throw new ValidationError(`namespace '${namespace}' is reserved`);
}

function assertNotEmpty(raw: string): void {
  if (raw.trim().length === 0) throw new ValidationError('The request body is empty');
}

const BUILT_IN = new Set<Analyzer>(BUILT_IN_ANALYZERS);

/**
 * Large bodies of built-in analyzers are split in the ingest worker pool (issue 18: parsing,
 * splitting and hashing a 10 MB plan must not stall the event loop); small ones, and analyzers
 * registered by the embedding code (a worker only knows the built-ins), run on this thread.
 */
function offThread(raw: string, analyzers: readonly Analyzer[]): boolean {
  return ingestPoolSize() > 0 && raw.length >= WORKER_MIN_CHARS && analyzers.every((a) => BUILT_IN.has(a));
}

/** The analyzer's units, each tagged with `metadata.analyzer`. */
async function splitWith(analyzer: Analyzer, raw: string): Promise<AnalysisUnit[]> {
  if (offThread(raw, [analyzer])) return (await runIngestJob({ op: 'analyzer', analyzer: analyzer.name, raw })).units;
  return analyzer.ingest!(raw).map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: analyzer.name } }));
}

async function route(analyzers: readonly Analyzer[], enabled: (name: string) => boolean, raw: string): Promise<AutoRouteResult> {
  if (!offThread(raw, analyzers)) return autoRoute(raw, analyzers, enabled);
  const names = analyzers.map((a) => a.name);
  const result = await runIngestJob({ op: 'auto', raw, analyzers: names, enabled: names.filter(enabled) });
  return { units: result.units, ...result.routed! };
}

/**
 * POST /{analyzer_name}/{namespace}/ingest (analysis-api.md "Ingest and client-led analysis"):
 * splits `raw` with the analyzer and records the units in the namespace.
 * Throws NotFoundError (unknown/disabled analyzer), NotImplementedError (no ingestion),
 * ValidationError (empty or unparseable input, bad namespace).
 */
export async function ingestWithAnalyzer(ctx: EngineContext, orgId: string, analyzerName: string, namespace: string, raw: string): Promise<AnalysisUnit[]> {
  const analyzer = await requireAnalyzer(ctx, orgId, analyzerName);
  if (!analyzer.ingest) throw new NotImplementedError(`Analyzer '${analyzer.name}' has no ingestion`);
  assertNamespace(namespace);
  assertNotEmpty(raw);
  const units = await splitWith(analyzer, raw);
  if (units.length === 0) throw new ValidationError(`Analyzer '${analyzer.name}' found no resources in the input`);
  await ctx.stores.resources.addUnits(orgId, namespace, units, ctx.now().toISOString());
  return units;
}

export interface AutoIngestResult {
  units: AnalysisUnit[];
  analyzers_used: string[];
  detections: DetectionEntry[];
}

/**
 * POST /{namespace}/ingest/auto: routes each diff file (or a blob) to an analyzer and records
 * the units. Throws ValidationError (422) for an empty body or when nothing matched.
 */
export async function ingestAuto(ctx: EngineContext, orgId: string, namespace: string, raw: string): Promise<AutoIngestResult> {
  assertNamespace(namespace);
  assertNotEmpty(raw);
  const enabled = await analyzerEnabledPredicate(ctx, orgId);
  // autoRoute throws 422 when no file matched any analyzer; matched files may still yield no
  // unit (a comment-only .tf change), which is a valid, empty ingest.
  const routed = await route([...ctx.analyzers.list()], enabled, raw);
  await ctx.stores.resources.addUnits(orgId, namespace, routed.units, ctx.now().toISOString());
  return { units: [...routed.units], analyzers_used: [...routed.analyzers_used], detections: routed.detections.map((d) => ({ ...d })) };
}
