/**
 * Counter documents: aggregates kept current by atomic `$inc` as their rows change, so a read
 * costs one document instead of a pass over the rows (docs/decisions.md "Aggregate counters").
 * Written once on the port, so it holds on every adapter alike.
 *
 * A counter document is `{_id, org_id, ready, pending, v, c}`; `c` holds the counts (nested
 * objects of numbers, addressed by dotted paths). There is no transaction spanning the rows and
 * their counter, so:
 * - a writer announces itself before writing its rows (`pending` +1, upserting the document)
 *   and afterwards adds its deltas to `c` together with `pending` -1 and `v` +1 (`track`);
 * - a counter that is not `ready` (never built, or invalidated) is rebuilt by a reader from a
 *   full recount of the rows and stored only if no writer was between its announcement and its
 *   deltas while the rows were counted: `pending` 0 before the recount and `v` unchanged when
 *   it is stored (one conditional update). A write that finished before the recount is in it
 *   (the deltas it left on the old counts are overwritten); any other write changes `pending`
 *   or `v`, so the stored counts never miss or double a write. Writers of this process wait
 *   while it rebuilds (a busy org is not starved); another replica's write makes it try again,
 *   and after REBUILD_ATTEMPTS it answers from its recount without storing it;
 * - a `pending` left by a process that died between announcing and its deltas would block the
 *   rebuild for good: it is taken as stale when `v` and `pending` stayed unchanged for STALE_MS
 *   (a write takes milliseconds; several processes may share a store, a SQLite file included),
 *   and until then a reader answers from its recount without storing it.
 * A process killed between a row write and its deltas leaves a ready counter off by that write;
 * `invalidate` makes the next read rebuild it.
 *
 * One announcement may cover several rows (a unit's new findings inserted at once), whose deltas
 * are summed and added in the one closing write: the argument above never counted rows, only
 * that `pending` stays raised from before the first row is written until every row's deltas are
 * in `c`, so a rebuild racing any of them is refused. A writer never announces again while it is
 * announced (nested `track` calls could wait forever on a rebuild that waits for them): a
 * fallback that writes row by row runs after the batch's `track` has returned.
 *
 * Besides sums, a counter can keep a running maximum (`latest`: e.g. the time of the newest row
 * of a group, as epoch ms): raised by conditional `$set` while the writer is still announced, so
 * a rebuild racing it either stores a recount that saw its row or is refused.
 */
import { ConflictError } from '../core/errors';
import type { Collection, Filter, Store } from './port';

/** Counts: numbers, or nested objects of counts. */
export interface Counts {
  [key: string]: number | Counts;
}

interface CounterDoc {
  _id: string;
  org_id: string;
  ready: boolean;
  pending: number;
  v: number;
  c?: Counts;
  /** The last `v`/`pending` a rebuild saw blocked, and when (shared stores' staleness test). */
  probe?: { v: number; pending: number; at: string };
}

const REBUILD_ATTEMPTS = 3;
const STALE_MS = 60_000;

/** Per store object: this process's writers in flight and rebuilds running, per counter id. */
class Gate {
  private readonly inflight = new Map<string, number>();
  private readonly rebuilding = new Map<string, Promise<void>>();
  private readonly drained = new Map<string, () => void>();

  async enter(id: string): Promise<void> {
    for (let running = this.rebuilding.get(id); running; running = this.rebuilding.get(id)) await running;
    this.inflight.set(id, (this.inflight.get(id) ?? 0) + 1);
  }

  leave(id: string): void {
    const left = (this.inflight.get(id) ?? 1) - 1;
    if (left > 0) {
      this.inflight.set(id, left);
      return;
    }
    this.inflight.delete(id);
    this.drained.get(id)?.();
  }

  /** Runs `fn` with no writer of `id` in flight in this process and none starting; one at a time per id. */
  async exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    for (let running = this.rebuilding.get(id); running; running = this.rebuilding.get(id)) await running;
    let release = () => {};
    this.rebuilding.set(id, new Promise<void>((resolve) => (release = resolve)));
    try {
      if (this.inflight.has(id)) await new Promise<void>((resolve) => this.drained.set(id, resolve));
      this.drained.delete(id);
      return await fn();
    } finally {
      this.rebuilding.delete(id);
      release();
    }
  }
}

const GATES = new WeakMap<Store, Gate>();

/** The `$inc` fields (`c.<path>`) that `deltas` name for counter `id`, zero sums left out. */
function countIncrements(id: string, deltas: readonly CounterDelta[]): Record<string, number> {
  const inc: Record<string, number> = {};
  for (const d of deltas) {
    if (d.id !== id) continue;
    for (const [path, n] of Object.entries(d.deltas)) inc[`c.${path}`] = (inc[`c.${path}`] ?? 0) + n;
  }
  for (const [path, n] of Object.entries(inc)) if (n === 0) delete inc[path];
  return inc;
}

/** One counter id and the deltas a write adds to it (dotted paths under `c`). */
export interface CounterDelta {
  readonly id: string;
  readonly deltas: Readonly<Record<string, number>>;
  /** Running maxima (dotted paths under `c`): each path becomes the value when it is greater, or absent. */
  readonly latest?: Readonly<Record<string, number>>;
}

/** The counter documents of one collection (one per org, or per org and period). */
export class CounterDocs {
  private readonly docs: Collection<CounterDoc>;
  private readonly gate: Gate;

  constructor(store: Store, name: string) {
    this.docs = store.collection<CounterDoc>(name);
    const gate = GATES.get(store) ?? new Gate();
    GATES.set(store, gate);
    this.gate = gate;
  }

  /**
   * Runs `write` (the rows' write) announced on the counters `ids` of `orgId`, then adds the
   * deltas `deltasOf(result)` names (a counter left out, or a zero delta, adds nothing). An
   * error of `write` propagates after the announcement is withdrawn. Returns `write`'s result.
   */
  async track<R>(orgId: string, ids: readonly string[], write: () => Promise<R>, deltasOf: (result: R) => readonly CounterDelta[]): Promise<R> {
    const unique = [...new Set(ids)];
    for (const id of unique) await this.gate.enter(id);
    try {
      // Each counter's announcement and closing write is its own document's atomic update; they
      // go as one write (Collection.bulkUpdateOne) only to spare round trips and transactions.
      await this.docs.bulkUpdateOne(
        unique.map((id) => ({ filter: { _id: id }, update: { $inc: { pending: 1 }, $setOnInsert: { org_id: orgId, ready: false, v: 0 } }, upsert: true })),
      );
      let deltas: readonly CounterDelta[] = [];
      try {
        const result = await write();
        deltas = deltasOf(result);
        for (const d of deltas) if (d.latest && unique.includes(d.id)) await this.raise(d.id, d.latest);
        return result;
      } finally {
        await this.docs.bulkUpdateOne(unique.map((id) => ({ filter: { _id: id }, update: { $inc: { pending: -1, v: 1, ...countIncrements(id, deltas) } } })));
      }
    } finally {
      for (const id of unique) this.gate.leave(id);
    }
  }

  /** Raises the `latest` paths of counter `id` to their values where these are greater (or the path absent). */
  private async raise(id: string, latest: Readonly<Record<string, number>>): Promise<void> {
    for (const [path, value] of Object.entries(latest)) {
      const field = `c.${path}`;
      const set = { $set: { [field]: value } };
      if ((await this.docs.updateOne({ _id: id, [field]: { $lt: value } }, set)).matched > 0) continue;
      await this.docs.updateOne({ _id: id, [field]: { $exists: false } }, set);
    }
  }

  /**
   * The counts of counter `id` of `orgId`; when it is not ready, `recount()` (a full pass over
   * the rows) rebuilds it as the module comment describes. `now` dates the stale-`pending` test.
   */
  async read(orgId: string, id: string, recount: () => Promise<Counts>, now: Date): Promise<Counts> {
    const doc = await this.docs.findOne({ _id: id });
    if (doc?.ready) return doc.c ?? {};
    return this.gate.exclusive(id, () => this.rebuild(orgId, id, recount, now));
  }

  private async rebuild(orgId: string, id: string, recount: () => Promise<Counts>, now: Date): Promise<Counts> {
    let counts: Counts = {};
    for (let attempt = 0; attempt < REBUILD_ATTEMPTS; attempt += 1) {
      const doc = await this.current(orgId, id);
      if (doc.ready) return doc.c ?? {};
      const pending = doc.pending === 0 ? 0 : await this.stalePending(doc, now);
      counts = await recount();
      if (pending === null) return counts;
      const stored = await this.docs.updateOne({ _id: id, v: doc.v, pending }, { $set: { c: counts, ready: true, pending: 0 }, $unset: { probe: true } });
      if (stored.matched > 0) return counts;
    }
    return counts;
  }

  /** The counter document, created (not ready) when missing. */
  private async current(orgId: string, id: string): Promise<CounterDoc> {
    try {
      await this.docs.insertOne({ _id: id, org_id: orgId, ready: false, pending: 0, v: 0 });
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
    return (await this.docs.findOne({ _id: id })) as CounterDoc;
  }

  /** `doc.pending` when it has not moved for STALE_MS (a writer that died), else null (records what it saw). */
  private async stalePending(doc: CounterDoc, now: Date): Promise<number | null> {
    const seen = doc.probe;
    if (seen && seen.v === doc.v && seen.pending === doc.pending && now.getTime() - Date.parse(seen.at) >= STALE_MS) return doc.pending;
    if (!seen || seen.v !== doc.v || seen.pending !== doc.pending) {
      await this.docs.updateOne({ _id: doc._id, v: doc.v }, { $set: { probe: { v: doc.v, pending: doc.pending, at: now.toISOString() } } });
    }
    return null;
  }

  /** Removes count paths (under `c`) of counter `id`, e.g. periods no read reaches any more. */
  async unset(id: string, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.docs.updateOne({ _id: id }, { $unset: Object.fromEntries(paths.map((p) => [`c.${p}`, true as const])) });
  }

  /**
   * Marks the matching counters not ready, so the next read rebuilds them from the rows (after
   * rows changed behind the counters' back, e.g. a platform-wide purge). Returns how many.
   */
  async invalidate(filter: Filter = {}): Promise<number> {
    return (await this.docs.updateMany(filter, { $set: { ready: false } })).matched;
  }
}
