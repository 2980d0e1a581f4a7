/**
 * The running server's storage behind one stable reference, so `POST /admin/storage/switch`
 * (identity-api.md "Platform administration") can change the backend without rebuilding the
 * typed stores that hold it: every collection handle forwards each call to the store active at
 * call time. The switch itself moves no data and is not persisted (a restart opens the
 * configured backend again).
 */
import type { Collection, Doc, Filter, FindOneAndUpdateOptions, FindOptions, IndexSpec, Store, ThreadAccess, Update, UpdateOneOp, UpdateOptions } from './port';

/** What the active store is: its backend name and, for docdb, its database. */
export interface StoreTarget {
  readonly backend: string;
  readonly database: string | null;
}

class ForwardingCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly active: () => Store,
  ) {}
  private get c(): Collection<T> {
    return this.active().collection<T>(this.name);
  }
  insertOne(doc: T) {
    return this.c.insertOne(doc);
  }
  insertMany(docs: readonly T[]) {
    return this.c.insertMany(docs);
  }
  findOne(filter: Filter, options?: Pick<FindOptions, 'sort'>) {
    return this.c.findOne(filter, options);
  }
  find(filter: Filter, options?: FindOptions) {
    return this.c.find(filter, options);
  }
  findRawJson(filter: Filter, options?: FindOptions) {
    return this.c.findRawJson(filter, options);
  }
  count(filter: Filter) {
    return this.c.count(filter);
  }
  distinct(path: string, filter: Filter) {
    return this.c.distinct(path, filter);
  }
  updateOne(filter: Filter, update: Update, options?: UpdateOptions) {
    return this.c.updateOne(filter, update, options);
  }
  updateMany(filter: Filter, update: Update) {
    return this.c.updateMany(filter, update);
  }
  bulkUpdateOne(ops: readonly UpdateOneOp[]) {
    return this.c.bulkUpdateOne(ops);
  }
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions) {
    return this.c.findOneAndUpdate(filter, update, options);
  }
  deleteOne(filter: Filter) {
    return this.c.deleteOne(filter);
  }
  deleteMany(filter: Filter) {
    return this.c.deleteMany(filter);
  }
}

/**
 * A Store that forwards to the active one. `switchTo` swaps it; the store it replaces stays
 * open (requests already running on it finish there) until `close`, which closes every store
 * this wrapper opened or was given, once.
 */
export class SwitchableStore implements Store {
  #active: Store;
  #target: StoreTarget;
  readonly #boot: { store: Store; target: StoreTarget };
  readonly #owned = new Set<Store>();

  constructor(boot: Store, database: string | null = null) {
    this.#active = boot;
    this.#target = { backend: boot.backend, database };
    this.#boot = { store: boot, target: this.#target };
    this.#owned.add(boot);
  }

  get backend(): string {
    return this.#active.backend;
  }

  /** The active store's (port.ts ThreadAccess). */
  get threadAccess(): ThreadAccess | undefined {
    return this.#active.threadAccess;
  }

  /** The active backend and database (GET /admin/storage). */
  get target(): StoreTarget {
    return this.#target;
  }

  /** The store opened at start-up, with what it is (a switch back to `sqlite` returns to it). */
  get boot(): { readonly store: Store; readonly target: StoreTarget } {
    return this.#boot;
  }

  /** Makes `store` (already schema-prepared by the caller) the active one from the next call on. */
  switchTo(store: Store, target: StoreTarget): void {
    this.#owned.add(store);
    this.#active = store;
    this.#target = target;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new ForwardingCollection<T>(name, () => this.#active);
  }

  ensureIndexes(collection: string, indexes: readonly IndexSpec[]): Promise<void> {
    return this.#active.ensureIndexes(collection, indexes);
  }

  purgeExpired(now?: Date): Promise<number> {
    return this.#active.purgeExpired(now);
  }

  async close(): Promise<void> {
    const stores = [...this.#owned];
    this.#owned.clear();
    for (const store of stores) await store.close();
  }
}
