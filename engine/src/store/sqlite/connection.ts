/**
 * One better-sqlite3 connection plus a kysely compiler. Queries are either kysely `sql`
 * fragments (DDL and bookkeeping) or, on the document read/write path, SQL text with `?`
 * placeholders built by filter.ts (no compilation per call); values are always bound as
 * parameters. Everything executes synchronously, so a read-modify-write inside `tx` can never
 * interleave with another operation of this process. Prepared statements are cached by SQL text.
 */
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { WAL_CHECKPOINT_BYTES, WAL_SAFETY_PAGES, WalCheckpointer } from './checkpointer';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type RawBuilder } from 'kysely';

export type Sql = RawBuilder<unknown>;
export type Row = Record<string, unknown>;

const STATEMENT_CACHE_MAX = 500;

/**
 * Who checkpoints a file database's WAL: `thread` (default) a checkpoint worker thread
 * (checkpointer.ts), keeping checkpoints off the event loop; `inline` SQLite's own automatic
 * checkpoint on the committing thread, for a connection that already lives in a worker thread
 * (the ingest worker's).
 */
export type WalCheckpoints = 'thread' | 'inline';

/** How long a write waits for another connection's write lock, in all (ms). */
const BUSY_WAIT_MS = 5000;
/** Longest pause between two attempts of a waiting `write` (ms). */
const BUSY_PAUSE_MAX_MS = 16;

/** Size of the WAL file of `file` in bytes (0 when there is none). */
function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

function isBusy(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY');
}

// Compile-only Kysely: the DummyDriver never executes anything.
const compiler = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

function bindable(p: unknown): unknown {
  // better-sqlite3 refuses JS booleans; JSON booleans read back through json_extract as 1/0.
  return typeof p === 'boolean' ? (p ? 1 : 0) : p;
}

export class SqliteConnection {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  /** Statements in pluck mode (first column only), cached apart: the mode is per statement. */
  readonly #plucked = new Map<string, Database.Statement>();
  readonly #dataVersion: Database.Statement;
  readonly #schemaVersion: Database.Statement;
  readonly #busyTimeoutOff: Database.Statement;
  readonly #busyTimeoutOn: Database.Statement;
  /** Writes waiting for another connection's lock (write), and the tail of their queue. */
  #waitingWrites = 0;
  #writeQueue: Promise<void> = Promise.resolve();
  #lastDataVersion: number;
  /** WAL checkpoints off the event loop; null for `:memory:`. */
  #checkpointer: WalCheckpointer | null = null;
  readonly #file: string;

  /**
   * Opens `file` (`:memory:` for a private in-memory database). File databases use WAL, with
   * checkpoints in a worker thread (checkpointer.ts), and a 5 s busy timeout so a
   * second process on the same file waits instead of failing. A new
   * database file is created 0600 (owner only); SQLite gives its -wal and -shm files the same
   * mode as the database file. `walCheckpoints`: see WalCheckpoints.
   */
  constructor(file: string, walCheckpoints: WalCheckpoints = 'thread') {
    this.#file = file;
    if (file !== ':memory:' && !existsSync(file)) closeSync(openSync(file, 'a', 0o600)); // an empty file is an empty database
    this.#db = new Database(file);
    if (file !== ':memory:') {
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('synchronous = NORMAL');
      // After a checkpoint has emptied it, the WAL file is truncated back to this size.
      this.#db.pragma(`journal_size_limit = ${WAL_CHECKPOINT_BYTES}`);
      // Checkpoints run in a worker thread (checkpointer.ts); this is only the bound if it lags.
      // An `inline` connection checkpoints by itself at that bound only: the event loop's
      // connection starts the checkpoint worker after its next write.
      this.#db.pragma(`wal_autocheckpoint = ${WAL_SAFETY_PAGES}`);
      if (walCheckpoints === 'thread') {
        this.#checkpointer = new WalCheckpointer(file, (pages) => {
          this.#db.pragma(`wal_autocheckpoint = ${pages}`);
        });
      }
    }
    this.#db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    this.#busyTimeoutOff = this.#db.prepare('PRAGMA busy_timeout = 0');
    this.#busyTimeoutOn = this.#db.prepare(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
    this.#dataVersion = this.#db.prepare('PRAGMA data_version').pluck();
    this.#lastDataVersion = this.#dataVersion.get() as number;
    this.#schemaVersion = this.#db.prepare('PRAGMA schema_version').pluck();
  }

  #prepare(q: Sql): { stmt: Database.Statement; params: unknown[] } {
    const compiled = q.compile(compiler);
    return { stmt: this.#statement(compiled.sql), params: compiled.parameters.map(bindable) };
  }

  /** The cached prepared statement for `text` (pluck mode: rows are their first column). */
  #statement(text: string, pluck = false): Database.Statement {
    const cache = pluck ? this.#plucked : this.#statements;
    let stmt = cache.get(text);
    if (!stmt) {
      if (cache.size >= STATEMENT_CACHE_MAX) cache.clear();
      stmt = this.#db.prepare(text);
      if (pluck) stmt.pluck();
      cache.set(text, stmt);
    }
    return stmt;
  }

  /**
   * SQL text with `?` placeholders (filter.ts): the first column of every row. `params` must
   * already be bindable (no JS booleans).
   */
  pluckText<V = unknown>(text: string, params: readonly unknown[]): V[] {
    return this.#statement(text, true).all(...params) as V[];
  }

  /** SQL text with `?` placeholders: every row. */
  allText<R extends Row = Row>(text: string, params: readonly unknown[]): R[] {
    return this.#statement(text).all(...params) as R[];
  }

  /** SQL text with `?` placeholders: the first row's first column, or undefined. */
  valueText<V = unknown>(text: string, params: readonly unknown[]): V | undefined {
    return this.#statement(text, true).get(...params) as V | undefined;
  }

  /** SQL text with `?` placeholders, returning no rows; the number of rows changed. */
  runText(text: string, params: readonly unknown[]): number {
    const changes = this.#statement(text).run(...params).changes;
    if (!this.#db.inTransaction) this.#checkpointer?.afterWrite();
    return changes;
  }

  /** Runs a statement that returns no rows; returns the number of rows changed. */
  run(q: Sql): number {
    const { stmt, params } = this.#prepare(q);
    const changes = stmt.run(...params).changes;
    if (!this.#db.inTransaction) this.#checkpointer?.afterWrite();
    return changes;
  }

  all<R extends Row = Row>(q: Sql): R[] {
    const { stmt, params } = this.#prepare(q);
    return stmt.all(...params) as R[];
  }

  get<R extends Row = Row>(q: Sql): R | undefined {
    const { stmt, params } = this.#prepare(q);
    return stmt.get(...params) as R | undefined;
  }

  /**
   * Runs one parameterless-compiled statement (positional `?` written in the SQL text) once per
   * row of `rows`, reusing one prepared statement; returns the total rows changed. For bulk
   * writes inside `tx`: no per-row query compilation.
   */
  runEach(q: Sql, rows: readonly (readonly unknown[])[]): number {
    const { stmt, params } = this.#prepare(q);
    if (params.length > 0) throw new Error('runEach takes its values per row, not in the statement');
    let changes = 0;
    for (const row of rows) changes += stmt.run(...row.map(bindable)).changes;
    return changes;
  }

  /** Runs DDL (no parameters allowed; cached statements re-prepare themselves after it). */
  exec(q: Sql): void {
    const compiled = q.compile(compiler);
    if (compiled.parameters.length > 0) throw new Error('DDL cannot take parameters');
    this.#db.exec(compiled.sql);
  }

  /**
   * Runs `fn` in an IMMEDIATE transaction (the write lock is taken up front, so two processes
   * never deadlock upgrading read locks). Nested calls become savepoints.
   */
  tx<R>(fn: () => R): R {
    const result = this.#db.transaction(fn).immediate();
    if (!this.#db.inTransaction) this.#checkpointer?.afterWrite();
    return result;
  }

  /**
   * `tx` for a thread that serves requests: while another connection (the ingest worker's,
   * another process's) holds the write lock, it waits with timers instead of SQLite's busy
   * handler, which would put the whole thread to sleep (no event-loop stall while a
   * worker records a large plan). Writes keep their call order: the first runs at once when the
   * lock is free; once one waits, later ones queue behind it. `fn` runs once, after the lock is
   * taken. Rejects with the driver's SQLITE_BUSY error after BUSY_WAIT_MS of waiting, and with
   * whatever `fn` or the commit throws.
   */
  write<R>(fn: () => R): Promise<R> {
    if (this.#waitingWrites === 0) {
      const first = this.#attempt(fn);
      if (first.done) return first.error === undefined ? Promise.resolve(first.value as R) : Promise.reject(first.error);
    }
    this.#waitingWrites += 1;
    const turn = this.#writeQueue.then(() => this.#waitForLock(fn));
    this.#writeQueue = turn.then(
      () => {},
      () => {},
    );
    return turn.finally(() => {
      this.#waitingWrites -= 1;
    });
  }

  async #waitForLock<R>(fn: () => R): Promise<R> {
    const deadline = performance.now() + BUSY_WAIT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, BUSY_PAUSE_MAX_MS)) {
      const attempt = this.#attempt(fn);
      if (attempt.done) {
        if (attempt.error !== undefined) throw attempt.error;
        return attempt.value as R;
      }
      if (performance.now() >= deadline) throw attempt.busy;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** One try at `tx(fn)` without SQLite's busy wait: done (value or error), or busy before `fn` ran. */
  #attempt<R>(fn: () => R): { done: true; value?: R; error?: unknown } | { done: false; busy: unknown } {
    let began = false;
    this.#busyTimeoutOff.get();
    try {
      return {
        done: true,
        value: this.tx(() => {
          began = true;
          return fn();
        }),
      };
    } catch (err) {
      if (began || !isBusy(err)) return { done: true, error: err ?? new Error('write failed') };
      return { done: false, busy: err };
    } finally {
      this.#busyTimeoutOn.get();
    }
  }

  /**
   * Runs a PASSIVE checkpoint on this thread (https://sqlite.org/c3ref/wal_checkpoint_v2.html:
   * never waits for readers or writers) when the WAL has grown past WAL_CHECKPOINT_BYTES; for an
   * `inline` connection between two pieces of work. Returns whether it ran.
   */
  checkpointIfLarge(): boolean {
    if (this.#file === ':memory:' || walBytes(this.#file) < WAL_CHECKPOINT_BYTES) return false;
    this.#db.pragma('wal_checkpoint(PASSIVE)');
    return true;
  }

  /** True when another connection committed since the previous call (PRAGMA data_version). */
  changedElsewhere(): boolean {
    const v = this.#dataVersion.get() as number;
    const changed = v !== this.#lastDataVersion;
    this.#lastDataVersion = v;
    return changed;
  }

  /** PRAGMA schema_version: moves whenever any connection changes the schema (e.g. adds a column). */
  schemaVersion(): number {
    return this.#schemaVersion.get() as number;
  }

  get open(): boolean {
    return this.#db.open;
  }

  /** Closes the connection and waits for the checkpoint worker's own connection to close too. */
  async close(): Promise<void> {
    const stopped = this.#checkpointer?.close();
    this.#statements.clear();
    this.#plucked.clear();
    if (this.#db.open) this.#db.close();
    await stopped;
  }
}
