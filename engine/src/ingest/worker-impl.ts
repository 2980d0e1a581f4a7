/**
 * The body of the ingest worker thread (worker-pool.ts): runs a built-in analyzer's `ingest`, or
 * auto-routing over the built-in analyzers, on a raw body and replies with the units. Runs in a
 * worker thread only; the analyzers are the same modules the server uses inline.
 */
import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import type { AnalysisUnit } from '../analyzers/types';
import { AppError } from '../errors';
import { autoRoute, type AutoRouteResult } from './auto-route';

/**
 * A job for the ingest worker: `analyzer` splits with one built-in analyzer (units tagged with
 * `metadata.analyzer`, as analysis-api.md's ingest reply shows them); `auto` auto-routes
 * over the named built-ins (in routing order), `enabled` being the org's switches.
 */
export type IngestJob =
  | { readonly op: 'analyzer'; readonly analyzer: string; readonly raw: string }
  | { readonly op: 'auto'; readonly raw: string; readonly analyzers: readonly string[]; readonly enabled: readonly string[] };

/** An AppError crossing the thread boundary: its class name, status, message and extra fields. */
export interface WorkerFailure {
  readonly name: string;
  readonly status: number | null;
  readonly message: string;
  readonly extra: Record<string, unknown>;
}

/**
 * Messages of one job, in order: `units` chunks of at most UNIT_CHUNK units (each its own
 * message, so the receiving event loop deserialises a bounded amount at a time), then `done`
 * (auto jobs carry the routing facts there; failures carry the error).
 */
export type IngestReply =
  | { readonly type: 'units'; readonly id: number; readonly units: AnalysisUnit[] }
  | { readonly type: 'done'; readonly id: number; readonly ok: true; readonly routed?: Omit<AutoRouteResult, 'units'> }
  | { readonly type: 'done'; readonly id: number; readonly ok: false; readonly failure: WorkerFailure };

/** Units per `units` message: ~250 units (~400 KB) deserialise in a few ms. */
export const UNIT_CHUNK = 250;

const byName = new Map(BUILT_IN_ANALYZERS.map((a) => [a.name, a]));

function splitJob(job: IngestJob): { units: AnalysisUnit[]; routed?: Omit<AutoRouteResult, 'units'> } {
  if (job.op === 'analyzer') {
    const analyzer = byName.get(job.analyzer);
    if (!analyzer?.ingest) throw new Error(`analyzer '${job.analyzer}' cannot ingest in a worker`);
    // Tagged here (as ingest-service.ts does inline) so the event loop gets the final units.
    const units = analyzer.ingest(job.raw);
    for (let i = 0; i < units.length; i += 1) units[i] = { ...units[i], metadata: { ...units[i].metadata, analyzer: analyzer.name } };
    return { units };
  }
  const enabled = new Set(job.enabled);
  const analyzers = job.analyzers.map((name) => byName.get(name)).filter((a) => a !== undefined);
  const { units, analyzers_used, detections } = autoRoute(job.raw, analyzers, (name) => enabled.has(name));
  return { units, routed: { analyzers_used, detections } };
}

/** Runs one job (synchronously, inside the worker), sending its replies through `post`; never throws. */
export function runIngestJob(id: number, job: IngestJob, post: (reply: IngestReply) => void): void {
  let result: ReturnType<typeof splitJob>;
  try {
    result = splitJob(job);
  } catch (error) {
    const app = error instanceof AppError ? error : null;
    post({
      type: 'done', id, ok: false,
      failure: {
        name: app ? app.name : 'Error',
        status: app ? app.status : null,
        message: error instanceof Error ? error.message : String(error),
        extra: app ? { ...app.extra } : {},
      },
    });
    return;
  }
  for (let start = 0; start < result.units.length; start += UNIT_CHUNK) {
    post({ type: 'units', id, units: result.units.slice(start, start + UNIT_CHUNK) });
  }
  post({ type: 'done', id, ok: true, routed: result.routed });
}
