import { randomUUID } from 'node:crypto';
import type { AnalysisUnit } from '../core/unit';
import { ConflictError } from '../core/errors';
import { forEachTimedBatch, type TimedBatchOptions } from './timed-batches';
import { readPagesInTimedBatches } from './timed-reads';
import type { Collection, IndexSpec, Store } from '../store/port';
import type { AnalysisPayload } from '../core/payload';

/**
 * Which layers of a unit's stored analysis completed (docs/decisions.md "Analysis layers"): the
 * checks always run; the model's review is `done`, `failed` (its call failed after its attempts),
 * `pending` (a model was asked for but not called: an earlier unit's model call had failed the job)
 * or `none` (no model asked for: a checks-only run). Internal: never part of a response.
 */
export interface AnalysisLayers {
  readonly checks: 'done';
  readonly model: 'done' | 'failed' | 'pending' | 'none';
  /** The provider's message when `model` is `failed`. */
  readonly model_error?: string | null;
}

/** True when the stored analysis holds the checks' findings but a model's review that was asked for is missing. */
export function lacksModelReview(resource: Pick<ResourceDoc, 'analysis' | 'layers'>): boolean {
  return resource.analysis !== null && (resource.layers?.model === 'failed' || resource.layers?.model === 'pending');
}

/**
 * Stored resources (analysis-api.md "Stored resource"). A resource is identified by
 * (org_id, hash): the same unit ingested into two namespaces is one resource, analysed once.
 * Namespace membership is kept separately (`namespace_resources`), in ingest order.
 */
export interface ResourceDoc {
  _id?: string;
  org_id: string;
  hash: string;
  analyzer: string;
  value: { type: string; name: string; action: string; body: string };
  metadata: Record<string, unknown>;
  analysis: AnalysisPayload | null;
  /** Digest of the ruleset the analysis was made with (null until analysed). */
  ruleset_digest: string | null;
  analysis_source: 'client' | 'server' | null;
  analyzed_at: string | null;
  created_at: string;
  /** The layers the stored analysis holds; absent or null for a client's analysis and for analyses stored before layers. */
  layers?: AnalysisLayers | null;
}

export interface NamespaceResourceDoc {
  _id?: string;
  org_id: string;
  namespace: string;
  hash: string;
  analyzer: string;
  /** Ingest order within the namespace: `${created_at}#${index}` keeps it sortable. */
  position: string;
  analyzed: boolean;
  created_at: string;
}

export interface NamespaceDoc {
  _id?: string;
  org_id: string;
  namespace: string;
  created_at: string;
  /**
   * The run that is the namespace's current state (docs/decisions.md "Runs compared"); absent on
   * a namespace recorded before runs (then every member counts as current).
   */
  latest_run?: string | null;
}

/**
 * One ingest of a namespace (docs/decisions.md "Runs compared"): the unit hashes it saw, in input
 * order, and the run that was current before it. Written before the namespace record names it,
 * so a run the namespace names is always whole. Internal: never part of a response.
 */
export interface NamespaceRunDoc {
  _id?: string;
  org_id: string;
  namespace: string;
  run_id: string;
  created_at: string;
  prev_run_id: string | null;
  hashes: string[];
}

/** The namespace's current run and the one before it (null when absent). */
export interface NamespaceRuns {
  readonly latest: NamespaceRunDoc | null;
  readonly previous: NamespaceRunDoc | null;
}

/** Runs kept per namespace (older ones are pruned after each ingest; a finished job keeps its comparison). */
export const RUNS_KEPT = 10;

export const RESOURCE_INDEXES: Record<string, IndexSpec[]> = {
  resources: [
    { name: 'org_hash', keys: { org_id: 1, hash: 1 }, unique: true },
    // The retention sweep's redaction reads an org's oldest unredacted resources by this (admin/retention.ts).
    { name: 'org_redacted_created', keys: { org_id: 1, content_redacted_at: 1, created_at: 1 } },
  ],
  namespace_resources: [
    { name: 'org_ns_hash', keys: { org_id: 1, namespace: 1, hash: 1 }, unique: true },
    { name: 'org_ns_analyzed_position', keys: { org_id: 1, namespace: 1, analyzed: 1, position: 1 } },
    // Members in ingest order (listMembers): timed pages read in index order, each offset skipped in index steps.
    { name: 'org_ns_position', keys: { org_id: 1, namespace: 1, position: 1 } },
    { name: 'org_hash', keys: { org_id: 1, hash: 1 } },
  ],
  namespaces: [
    { name: 'org_ns', keys: { org_id: 1, namespace: 1 }, unique: true },
    { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
  ],
  namespace_runs: [
    { name: 'org_ns_run', keys: { org_id: 1, namespace: 1, run_id: 1 }, unique: true },
    { name: 'org_ns_created', keys: { org_id: 1, namespace: 1, created_at: -1 } },
  ],
};

function newResource(orgId: string, unit: AnalysisUnit, now: string): ResourceDoc {
  return {
    org_id: orgId,
    hash: unit.hash,
    analyzer: String(unit.metadata.analyzer ?? 'unknown'),
    value: { type: unit.type, name: unit.name, action: unit.action, body: unit.body },
    metadata: { ...unit.metadata },
    analysis: null,
    ruleset_digest: null,
    analysis_source: null,
    analyzed_at: null,
    created_at: now,
  };
}

/** `position` keeps ingest order sortable within a namespace: `${created_at}#${index}`. */
function newMember(orgId: string, namespace: string, unit: AnalysisUnit, index: number, now: string, analyzed: boolean): NamespaceResourceDoc {
  return {
    org_id: orgId,
    namespace,
    hash: unit.hash,
    analyzer: String(unit.metadata.analyzer ?? 'unknown'),
    position: `${now}#${String(index).padStart(7, '0')}`,
    analyzed,
    created_at: now,
  };
}

/** Typed store for resources and namespaces. Every method takes the org first. */
export class ResourceStore {
  private readonly resources: Collection<ResourceDoc>;
  private readonly members: Collection<NamespaceResourceDoc>;
  private readonly namespaces: Collection<NamespaceDoc>;
  private readonly runs: Collection<NamespaceRunDoc>;

  constructor(store: Store) {
    this.resources = store.collection<ResourceDoc>('resources');
    this.members = store.collection<NamespaceResourceDoc>('namespace_resources');
    this.namespaces = store.collection<NamespaceDoc>('namespaces');
    this.runs = store.collection<NamespaceRunDoc>('namespace_runs');
  }

  /**
   * Records `units` in `namespace` (created implicitly) as the run `runId`. Existing resources
   * keep their analysis; a unit already in the namespace keeps its position. Idempotent. Works in
   * batches (one read and one bulk insert per collection per batch); a concurrent ingest of the
   * same content (ConflictError on the bulk insert) falls back to per-unit upserts for that batch.
   * `batches`: the sizing of those batches (timed-batches.ts; default 8 ms each, for the event
   * loop); the ingest worker, off the event loop, writes in larger ones (fewer commits).
   *
   * The namespace record is written last, naming this run (docs/decisions.md "Runs compared"): the
   * storage port has no multi-document transaction, so the record is the commit point. An ingest
   * that dies part-way leaves resources and members no namespace record names as current, never a
   * namespace record without its resources.
   */
  async addUnits(
    orgId: string,
    namespace: string,
    units: readonly AnalysisUnit[],
    now: string,
    batches: TimedBatchOptions = {},
    runId: string = randomUUID(),
  ): Promise<void> {
    const unique = [...new Map(units.map((u) => [u.hash, u])).values()];
    // A batch's writes run synchronously on sqlite; batches are sized to a few ms of
    // work each, with an event-loop turn between them (a 10 MB plan never blocks other requests).
    await forEachTimedBatch(
      unique,
      async (batch, start) => {
        try {
          await this.addBatch(orgId, namespace, batch, start, now);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
          await this.addOneByOne(orgId, namespace, batch, start, now);
        }
      },
      batches,
    );
    await this.commitRun(
      orgId,
      namespace,
      runId,
      unique.map((u) => u.hash),
      now,
    );
  }

  /**
   * Writes the run, then the namespace record naming it (the commit point), then prunes runs
   * beyond RUNS_KEPT. A run already recorded (an ingest continuing it) gains the new hashes.
   */
  private async commitRun(orgId: string, namespace: string, runId: string, hashes: string[], now: string): Promise<void> {
    const continued = await this.runs.findOne({ org_id: orgId, namespace, run_id: runId });
    if (continued) {
      const seen = new Set(continued.hashes);
      const added = hashes.filter((h) => !seen.has(h));
      if (added.length > 0) await this.runs.updateOne({ org_id: orgId, namespace, run_id: runId }, { $set: { hashes: [...continued.hashes, ...added] } });
      return;
    }
    const current = await this.namespaces.findOne({ org_id: orgId, namespace });
    await this.runs.insertOne({ org_id: orgId, namespace, run_id: runId, created_at: now, prev_run_id: current?.latest_run ?? null, hashes });
    await this.namespaces.updateOne({ org_id: orgId, namespace }, { $setOnInsert: { created_at: now }, $set: { latest_run: runId } }, { upsert: true });
    const stale = await this.runs.find({ org_id: orgId, namespace }, { sort: { created_at: -1, run_id: 1 }, skip: RUNS_KEPT });
    if (stale.length > 0) await this.runs.deleteMany({ org_id: orgId, namespace, run_id: { $in: stale.map((r) => r.run_id) } });
  }

  private async addBatch(orgId: string, namespace: string, batch: readonly AnalysisUnit[], offset: number, now: string): Promise<void> {
    const hashes = batch.map((u) => u.hash);
    const existing = await this.resources.find({ org_id: orgId, hash: { $in: hashes } });
    const stale = await this.refreshContext(orgId, existing, batch);
    const analysed = new Map(existing.map((r) => [r.hash, r.analysis !== null && !lacksModelReview(r) && !stale.has(r.hash)]));
    const fresh = batch.filter((u) => !analysed.has(u.hash));
    if (fresh.length > 0) await this.resources.insertMany(fresh.map((u) => newResource(orgId, u, now)));
    const members = await this.members.find({ org_id: orgId, namespace, hash: { $in: hashes } });
    const present = new Set(members.map((m) => m.hash));
    const missing = batch.flatMap((u, i) => (present.has(u.hash) ? [] : [newMember(orgId, namespace, u, offset + i, now, analysed.get(u.hash) ?? false)]));
    if (missing.length > 0) await this.members.insertMany(missing);
  }

  /**
   * docs/decisions.md "Plan context": a stored resource whose unit now comes with other companions
   * (`metadata.context_digest` differs) takes the new context, and its stored analysis no longer
   * counts as done (members unanalysed; run-job.ts compares the digest it was made with).
   * Returns the hashes whose context changed.
   */
  private async refreshContext(orgId: string, existing: readonly ResourceDoc[], batch: readonly AnalysisUnit[]): Promise<Set<string>> {
    const byHash = new Map(batch.map((u) => [u.hash, u]));
    const stale = new Set<string>();
    for (const resource of existing) {
      const unit = byHash.get(resource.hash);
      if (!unit || !Array.isArray(unit.metadata.context) || unit.metadata.context_digest === resource.metadata.context_digest) continue;
      const { context_digest: _old, ...rest } = resource.metadata;
      void _old;
      const metadata = { ...rest, context: unit.metadata.context, ...(unit.metadata.context_digest ? { context_digest: unit.metadata.context_digest } : {}) };
      await this.resources.updateOne({ org_id: orgId, hash: resource.hash }, { $set: { metadata } });
      stale.add(resource.hash);
    }
    if (stale.size > 0) await this.members.updateMany({ org_id: orgId, hash: { $in: [...stale] } }, { $set: { analyzed: false } });
    return stale;
  }

  private async addOneByOne(orgId: string, namespace: string, batch: readonly AnalysisUnit[], offset: number, now: string): Promise<void> {
    for (const [i, unit] of batch.entries()) {
      const { org_id: _o, hash: _h, ...insert } = newResource(orgId, unit, now);
      void _o;
      void _h;
      await this.resources.updateOne({ org_id: orgId, hash: unit.hash }, { $setOnInsert: insert }, { upsert: true });
      const resource = await this.resources.findOne({ org_id: orgId, hash: unit.hash });
      const stale = await this.refreshContext(orgId, resource ? [resource] : [], [unit]);
      const { org_id: _mo, namespace: _mn, hash: _mh, analyzed: _ma, ...member } = newMember(orgId, namespace, unit, offset + i, now, false);
      void _mo;
      void _mn;
      void _mh;
      void _ma;
      await this.members.updateOne(
        { org_id: orgId, namespace, hash: unit.hash },
        { $setOnInsert: member, $set: { analyzed: Boolean(resource?.analysis) && !lacksModelReview(resource!) && !stale.has(unit.hash) } },
        { upsert: true },
      );
    }
  }

  get(orgId: string, hash: string): Promise<ResourceDoc | null> {
    return this.resources.findOne({ org_id: orgId, hash });
  }

  getMany(orgId: string, hashes: readonly string[]): Promise<ResourceDoc[]> {
    return this.resources.find({ org_id: orgId, hash: { $in: hashes } });
  }

  /**
   * Namespace members in ingest order, read in pages of a few milliseconds with a turn of the
   * event loop between them (readPagesInTimedBatches): a namespace of 10,000 units is that many
   * documents, which one read would decode in a single stall.
   */
  listMembers(orgId: string, namespace: string): Promise<NamespaceResourceDoc[]> {
    const filter = { org_id: orgId, namespace };
    return readPagesInTimedBatches(Number.POSITIVE_INFINITY, (_after, limit, skip) => this.members.find(filter, { sort: { position: 1 }, skip, limit }), {
      first: 500,
      max: 5_000,
    });
  }

  /** The namespace's members among `hashes` (any order). */
  membersAmong(orgId: string, namespace: string, hashes: readonly string[]): Promise<NamespaceResourceDoc[]> {
    return hashes.length === 0 ? Promise.resolve([]) : this.members.find({ org_id: orgId, namespace, hash: { $in: hashes } });
  }

  /** The first unanalysed member of the namespace, in ingest order; null when all are analysed. */
  nextUnanalysed(orgId: string, namespace: string): Promise<NamespaceResourceDoc | null> {
    return this.members.findOne({ org_id: orgId, namespace, analyzed: false }, { sort: { position: 1 } });
  }

  /** Namespaces with at least one resource, newest first. */
  listNamespaces(orgId: string): Promise<NamespaceDoc[]> {
    return this.namespaces.find({ org_id: orgId }, { sort: { created_at: -1, namespace: 1 } });
  }

  /** The run the namespace record names as current; null for an unknown namespace or one without runs. */
  async currentRunId(orgId: string, namespace: string): Promise<string | null> {
    return (await this.namespaces.findOne({ org_id: orgId, namespace }))?.latest_run ?? null;
  }

  /** One run of the namespace (its hashes included), or null when unknown or pruned. */
  getRun(orgId: string, namespace: string, runId: string): Promise<NamespaceRunDoc | null> {
    return this.runs.findOne({ org_id: orgId, namespace, run_id: runId });
  }

  /** The namespace's current run (the one its record names) and the run before it; nulls for a namespace without runs. */
  async latestRuns(orgId: string, namespace: string): Promise<NamespaceRuns> {
    const record = await this.namespaces.findOne({ org_id: orgId, namespace });
    const latest = record?.latest_run ? await this.getRun(orgId, namespace, record.latest_run) : null;
    const previous = latest?.prev_run_id ? await this.getRun(orgId, namespace, latest.prev_run_id) : null;
    return { latest, previous };
  }

  /**
   * The members of the namespace's current run, in ingest order: every member when the namespace
   * has no run recorded (ingested before runs existed).
   */
  async currentMembers(orgId: string, namespace: string): Promise<NamespaceResourceDoc[]> {
    const [members, { latest }] = await Promise.all([this.listMembers(orgId, namespace), this.latestRuns(orgId, namespace)]);
    if (!latest) return members;
    const current = new Set(latest.hashes);
    return members.filter((m) => current.has(m.hash));
  }

  namespaceExists(orgId: string, namespace: string): Promise<boolean> {
    return this.namespaces.count({ org_id: orgId, namespace }).then((n) => n > 0);
  }

  /** Namespaces a resource belongs to. */
  async namespacesOf(orgId: string, hash: string): Promise<string[]> {
    const rows = await this.members.find({ org_id: orgId, hash });
    return rows.map((r) => r.namespace);
  }

  /** Namespaces of each of `hashes` (index org_hash): hash → names; a hash in none is absent. */
  async namespacesOfMany(orgId: string, hashes: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (hashes.length === 0) return out;
    for (const r of await this.members.find({ org_id: orgId, hash: { $in: hashes } })) out.set(r.hash, [...(out.get(r.hash) ?? []), r.namespace]);
    return out;
  }

  /**
   * Stores an analysis with the layers it holds (`meta.layers`, default null: a client's analysis)
   * and marks the resource analysed in every namespace holding it, unless it still lacks a model's
   * review that was asked for (then GET /{namespace}/resource/next still serves it).
   */
  async saveAnalysis(
    orgId: string,
    hash: string,
    analysis: AnalysisPayload,
    meta: { rulesetDigest: string | null; source: 'client' | 'server'; now: string; layers?: AnalysisLayers | null },
  ): Promise<ResourceDoc | null> {
    const layers = meta.layers ?? null;
    const updated = await this.resources.findOneAndUpdate(
      { org_id: orgId, hash },
      { $set: { analysis, ruleset_digest: meta.rulesetDigest, analysis_source: meta.source, analyzed_at: meta.now, layers } },
      { returnDocument: 'after' },
    );
    if (updated) await this.members.updateMany({ org_id: orgId, hash }, { $set: { analyzed: !lacksModelReview({ analysis, layers }) } });
    return updated;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly resources: ResourceStore;
  }
}
