import { randomUUID } from 'node:crypto';
import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import type { Analyzer, AnalysisUnit } from '../core/unit';
import type { EngineContext } from '../context/engine-context';
import { NotImplementedError, ValidationError } from '../core/errors';
import { autoRoute, type AutoRouteResult } from '../ingest/auto-route';
import { ingestPoolSize, runIngestJob, WORKER_MIN_CHARS } from '../ingest/worker-pool';
import { decodeText } from '../core/decode';
import { assertNotEmpty, assertUnitsFound } from '../ingest/ingest-checks';
import { analyzerEnabledPredicate, requireAnalyzer } from './analyzer-access';
import type { DetectionEntry } from './job-store';

/** Namespace names: 1-128 of [A-Za-z0-9._-], starting alphanumeric; never a reserved top-level path. */
const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const RESERVED_NAMESPACES = new Set([
  'analyzers',
  'jobs',
  'findings',
  'feedback',
  'models',
  'orgs',
  'auth',
  'admin',
  'resource',
  'resources',
  'namespaces',
  'reports',
  'health',
  'rule-health',
  'rule-proposals',
  'metrics',
  'invite',
  'integrations',
  'notifications',
  'scim',
  'docs',
  'redoc',
  'mcp',
]);

/** Throws ValidationError (422) for a namespace that cannot be stored or would shadow a fixed path. */
export function assertNamespace(namespace: string): void {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new ValidationError('namespace must be 1-128 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  if (RESERVED_NAMESPACES.has(namespace)) throw new ValidationError(`namespace '${namespace}' is reserved`);
}

const BUILT_IN = new Set<Analyzer>(BUILT_IN_ANALYZERS);

/**
 * Large bodies of built-in analyzers are split in the ingest worker pool (parsing,
 * splitting and hashing a 10 MB plan must not stall the event loop); small ones, and analyzers
 * registered by the embedding code (a worker only knows the built-ins), run on this thread.
 */
function offThread(raw: string | Uint8Array, analyzers: readonly Analyzer[]): boolean {
  return ingestPoolSize() > 0 && raw.length >= WORKER_MIN_CHARS && analyzers.every((a) => BUILT_IN.has(a));
}

/** What to split with: one analyzer, or auto-routing over the registry with the org's switches. */
type Target =
  | { readonly kind: 'analyzer'; readonly analyzer: Analyzer }
  | { readonly kind: 'auto'; readonly analyzers: readonly Analyzer[]; readonly enabled: (name: string) => boolean };

/**
 * A recorded ingest. Small inputs (and stores no worker can open) come back as unit objects;
 * a large one recorded by the ingest worker comes back as `json`, the pieces of
 * JSON.stringify(units) without its brackets, so the event loop never holds its objects.
 */
export interface RecordedIngest {
  /** The units' hashes, one per unit, in input order. */
  readonly hashes: readonly string[];
  readonly units: readonly AnalysisUnit[] | null;
  /** Mutable: the reply writer takes the pieces out as it sends them. */
  readonly json: string[] | null;
  readonly analyzers_used: string[];
  readonly detections: DetectionEntry[];
  /** The run this ingest recorded (docs/decisions.md "Runs compared"). */
  readonly run_id: string;
}

/**
 * Splits `body` (text, or the bytes as received: decoded where it is split) with `target` and
 * records the units; `asText`: the caller wants the JSON text (RecordedIngest `json`) when the
 * worker can record them itself. Throws ValidationError (422) for an empty body.
 */
async function record(
  ctx: EngineContext,
  orgId: string,
  namespace: string,
  body: string | Uint8Array,
  target: Target,
  asText: boolean,
  continueRun = false,
): Promise<RecordedIngest> {
  const analyzers = target.kind === 'analyzer' ? [target.analyzer] : target.analyzers;
  const now = ctx.now().toISOString();
  const runId = (continueRun ? await ctx.stores.resources.currentRunId(orgId, namespace) : null) ?? randomUUID();
  let units: AnalysisUnit[];
  let routed: Omit<AutoRouteResult, 'units'> = { analyzers_used: [], detections: [] };
  if (typeof body === 'string') assertNotEmpty(body); // bytes are checked once decoded
  if (offThread(body, analyzers)) {
    const raw = body;
    const names = analyzers.map((a) => a.name);
    const access = asText ? ctx.stores.store.threadAccess : undefined;
    const result = await runIngestJob({
      ...(target.kind === 'analyzer'
        ? { op: 'analyzer' as const, analyzer: target.analyzer.name, raw }
        : { op: 'auto' as const, raw, analyzers: names, enabled: names.filter(target.enabled) }),
      ...(access ? { record: { store: access, orgId, namespace, now, runId } } : {}),
    });
    if (result.routed) routed = result.routed;
    if (result.json && result.hashes) return { hashes: result.hashes, units: null, json: result.json, run_id: runId, ...copyRouted(routed) };
    units = result.units;
  } else if (target.kind === 'analyzer') {
    const raw = decoded(body);
    units = target.analyzer.ingest!(raw).map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: target.analyzer.name } }));
  } else {
    // autoRoute throws 422 when no file matched any analyzer; matched files may still yield no
    // unit (a comment-only .tf change), which is a valid, empty ingest.
    ({ units, ...routed } = autoRoute(decoded(body), target.analyzers, target.enabled));
  }
  if (target.kind === 'analyzer') assertUnitsFound(target.analyzer.name, units);
  await ctx.stores.resources.addUnits(orgId, namespace, units, now, {}, runId);
  return { hashes: units.map((u) => u.hash), units, json: null, run_id: runId, ...copyRouted(routed) };
}

function decoded(body: string | Uint8Array): string {
  if (typeof body === 'string') return body;
  const raw = decodeText(body);
  assertNotEmpty(raw);
  return raw;
}

function copyRouted(routed: Omit<AutoRouteResult, 'units'>): Pick<RecordedIngest, 'analyzers_used' | 'detections'> {
  return { analyzers_used: [...routed.analyzers_used], detections: routed.detections.map((d) => ({ ...d })) };
}

async function analyzerTarget(ctx: EngineContext, orgId: string, analyzerName: string, namespace: string): Promise<Target> {
  const analyzer = await requireAnalyzer(ctx, orgId, analyzerName);
  if (!analyzer.ingest) throw new NotImplementedError(`Analyzer '${analyzer.name}' has no ingestion`);
  assertNamespace(namespace);
  return { kind: 'analyzer', analyzer };
}

async function autoTarget(ctx: EngineContext, orgId: string, namespace: string): Promise<Target> {
  assertNamespace(namespace);
  return { kind: 'auto', analyzers: [...ctx.analyzers.list()], enabled: await analyzerEnabledPredicate(ctx, orgId) };
}

/**
 * POST /{analyzer_name}/{namespace}/ingest (analysis-api.md "Ingest and client-led analysis"):
 * splits `raw` with the analyzer and records the units in the namespace.
 * Throws NotFoundError (unknown/disabled analyzer), NotImplementedError (no ingestion),
 * ValidationError (empty or unparseable input, bad namespace).
 */
export async function ingestWithAnalyzer(ctx: EngineContext, orgId: string, analyzerName: string, namespace: string, raw: string): Promise<AnalysisUnit[]> {
  const recorded = await record(ctx, orgId, namespace, raw, await analyzerTarget(ctx, orgId, analyzerName, namespace), false);
  return [...recorded.units!];
}

export interface AutoIngestResult {
  units: AnalysisUnit[];
  analyzers_used: string[];
  detections: DetectionEntry[];
  /** The run recorded (docs/decisions.md "Runs compared"); absent when nothing was recorded. */
  run_id?: string;
}

/**
 * POST /{namespace}/ingest/auto: routes each diff file (or a blob) to an analyzer and records
 * the units. Throws ValidationError (422) for an empty body or when nothing matched.
 */
export async function ingestAuto(ctx: EngineContext, orgId: string, namespace: string, raw: string): Promise<AutoIngestResult> {
  const recorded = await record(ctx, orgId, namespace, raw, await autoTarget(ctx, orgId, namespace), false);
  return { units: [...recorded.units!], analyzers_used: recorded.analyzers_used, detections: recorded.detections, run_id: recorded.run_id };
}

/**
 * ingestWithAnalyzer (`analyzerName` given) or ingestAuto (null) for a caller that only needs the
 * units' JSON text and hashes (the HTTP ingest reply, the analyze endpoints): a large input on a
 * SQLite file store is split, recorded and serialised in the ingest worker (docs/decisions.md
 * "Ingest off the event loop, second round"). `body`: the text, or the request's bytes as
 * received (decode.ts decodes them where they are split; a large body's bytes are transferred to
 * the worker, leaving the caller's view empty). `continueRun`: the units join the namespace's
 * current run instead of starting one (a new run when it has none). Same errors as those two.
 */
export async function recordIngest(
  ctx: EngineContext,
  orgId: string,
  analyzerName: string | null,
  namespace: string,
  body: string | Uint8Array,
  options: { readonly continueRun?: boolean } = {},
): Promise<RecordedIngest> {
  const target = analyzerName === null ? await autoTarget(ctx, orgId, namespace) : await analyzerTarget(ctx, orgId, analyzerName, namespace);
  return record(ctx, orgId, namespace, body, target, true, options.continueRun === true);
}
