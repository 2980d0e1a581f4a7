/**
 * A write from the event loop that meets another connection's write lock (the ingest
 * worker recording a large plan, another process) waits with timers, not in SQLite's sleeping
 * busy handler: the thread keeps running other work meanwhile, and queued writes keep their order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from './store';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-busy-'));
  dirs.push(dir);
  return join(dir, 'planwarden.sqlite');
}

describe('writes waiting for another connection’s lock', () => {
  it('do not block the thread, run in call order once the lock is free, and leave nothing half-written', async () => {
    const file = tempFile();
    const store = new SqliteStore(file);
    const other = new Database(file);
    try {
      const notes = store.collection<{ _id?: string; n: number }>('notes');
      await notes.insertOne({ n: 0 });
      other.exec('BEGIN IMMEDIATE'); // another connection takes the write lock and keeps it
      const first = notes.insertOne({ n: 1 });
      const second = notes.updateOne({ n: 0 }, { $set: { n: 2 } });
      const third = notes.deleteMany({ n: 1 });
      // The event loop keeps turning while they wait (a sleeping busy handler would hold it).
      let ticks = 0;
      await new Promise<void>((resolve) => {
        const tick = (): void => {
          ticks += 1;
          if (ticks < 20) setTimeout(tick, 1);
          else resolve();
        };
        setTimeout(tick, 1);
      });
      expect(ticks).toBe(20);
      expect(await notes.count({})).toBe(1); // nothing written yet; reads are not held up
      other.exec('COMMIT');
      await Promise.all([first, second, third]);
      // In call order: inserted n=1, then n=0 → 2, then n=1 deleted.
      expect((await notes.find({}, { sort: { n: 1 } })).map((d) => d.n)).toEqual([2]);
    } finally {
      other.close();
      await store.close();
    }
  });

  it('a write that fails inside its transaction is not retried and rolls back', async () => {
    const file = tempFile();
    const store = new SqliteStore(file);
    const other = new Database(file);
    try {
      await store.ensureIndexes('keys', [{ name: 'k', keys: { k: 1 }, unique: true }]);
      const keys = store.collection<{ _id?: string; k: string }>('keys');
      await keys.insertOne({ k: 'a' });
      other.exec('BEGIN IMMEDIATE');
      const dup = keys.insertMany([{ k: 'b' }, { k: 'a' }]);
      other.exec('COMMIT');
      await expect(dup).rejects.toMatchObject({ status: 409 });
      expect((await keys.find({}, { sort: { k: 1 } })).map((d) => d.k)).toEqual(['a']);
    } finally {
      other.close();
      await store.close();
    }
  });
});
