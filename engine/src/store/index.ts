/**
 * The storage port and its adapters (DESIGN.md "Storage"). Typed stores import from here.
 * The MongoDB adapter is not re-exported: `openStore` loads it on demand, so importing the
 * store does not load the `mongodb` driver.
 */
export type {
  Collection,
  Doc,
  FieldOps,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  IndexSpec,
  JsonValue,
  SortSpec,
  Store,
  Update,
  UpdateOptions,
} from './port';
export { openStore, SQLITE_FILE_NAME, type OpenStoreOptions, type StoreBackend } from './open-store';
export { openMemoryStore } from './memory/store';
export { SqliteStore } from './sqlite/store';
export type { MongoStore } from './mongo/store';
