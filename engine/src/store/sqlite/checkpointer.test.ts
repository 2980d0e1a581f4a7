import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WAL_CHECKPOINT_BYTES } from './checkpointer';
import { SqliteConnection } from './connection';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('WAL checkpoints off the event loop', () => {
  it('no commit copies the WAL into the database; a worker thread does it once the WAL passes 4 MB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planwarden-ckpt-'));
    dirs.push(dir);
    const file = join(dir, 'planwarden.sqlite');
    const conn = new SqliteConnection(file);
    try {
      conn.exec(sql`CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT NOT NULL)`);
      const row = 'x'.repeat(64 * 1024);
      // ~6 MB in 96 transactions: SQLite's automatic checkpoint (every 1000 pages, ~4 MB) would
      // have copied the pages into the database file inside one of these commits.
      for (let i = 0; i < 96; i += 1) conn.tx(() => conn.runText('INSERT INTO t (doc) VALUES (?)', [row]));
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(WAL_CHECKPOINT_BYTES);
      expect(statSync(file).size).toBeLessThan(1024 * 1024);
      // The checkpoint worker copies them, without this thread waiting for it.
      await vi.waitFor(() => expect(statSync(file).size).toBeGreaterThan(WAL_CHECKPOINT_BYTES), { timeout: 20_000, interval: 20 });
      expect(conn.valueText<number>('SELECT count(*) FROM t', [])).toBe(96);
      // Once close resolves, no connection is left: the last one out removed the WAL and shared memory.
      await conn.close();
      expect(readdirSync(dir)).toEqual(['planwarden.sqlite']);
    } finally {
      await conn.close();
    }
  });
});
