/** Types of worker-entries.mjs (the bundles' worker threads), for TypeScript importers (electron.vite.config.ts). */
export interface WorkerEntry {
  /** The bundle entry's name: the body is emitted as `./<name>.js` beside the main file. */
  readonly name: string;
  /** The body's TypeScript source (absolute path). */
  readonly body: string;
  /** The plain-ESM thread entry copied as is beside the bundle (absolute path). */
  readonly thread: string;
  /** The global the bundler defines as the body's URL. */
  readonly define: string;
}
export declare const WORKER_ENTRIES: readonly WorkerEntry[];
/** Bundler `define` entries: each body's URL relative to the bundle, JSON-encoded (`"./<name>.js"`). */
export declare function workerDefines(): Record<string, string>;
