/**
 * Hot columns (docs/decisions.md "SQLite hot columns") on databases written before them. A file whose indexes are the old
 * `json_extract` expression indexes (recorded without `on: 'columns'`) is opened, its columns
 * added and back-filled and its indexes rebuilt on them by `ensureIndexes`; a second connection
 * that opened the file before the migration writes the new columns too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors';
import type { IndexSpec } from '../port';
import { SqliteStore } from './store';

const SPECS: IndexSpec[] = [
  { name: 'org_hash', keys: { org_id: 1, hash: 1 }, unique: true },
  { name: 'org_created', keys: { org_id: 1, created_at: -1 } },
];

/** The layout the adapter wrote before hot columns: expression indexes, old spec rows. */
function writeLegacyFile(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE _planwarden_indexes (collection TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, PRIMARY KEY (collection, name)) WITHOUT ROWID;
    CREATE TABLE _planwarden_array_paths (collection TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (collection, path)) WITHOUT ROWID;
    CREATE TABLE resources (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL);
    CREATE UNIQUE INDEX resources__org_hash ON resources (json_extract(doc, '$.org_id') ASC, json_extract(doc, '$.hash') ASC);
    CREATE INDEX resources__org_created ON resources (json_extract(doc, '$.org_id') ASC, json_extract(doc, '$.created_at') DESC);`);
  const spec = db.prepare('INSERT INTO _planwarden_indexes VALUES (?, ?, ?)');
  for (const s of SPECS) spec.run('resources', s.name, JSON.stringify({ keys: s.keys, unique: s.unique === true, ttl: null }));
  const doc = db.prepare('INSERT INTO resources VALUES (?, ?)');
  for (let i = 0; i < 50; i += 1) {
    const d = { _id: `r${i}`, org_id: `org${i % 2}`, hash: `h${i}`, created_at: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z` };
    doc.run(d._id, JSON.stringify(d));
  }
  doc.run('nohash', JSON.stringify({ _id: 'nohash', org_id: 'org9' }));
  db.close();
}

describe('sqlite adapter: hot columns on an existing database', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('adds and back-fills the columns, rebuilds the indexes on them, and keeps every document findable', async () => {
    dir = mkdtempSync(join(tmpdir(), 'planwarden-migrate-'));
    const file = join(dir, 'data.sqlite');
    writeLegacyFile(file);
    const replica = new SqliteStore(file); // opened before the migration, as a second replica would be
    const store = new SqliteStore(file);
    try {
      await store.ensureIndexes('resources', SPECS);
      const resources = store.collection<{ _id?: string; org_id: string; hash?: string; created_at?: string }>('resources');
      expect(await resources.count({ org_id: 'org1' })).toBe(25);
      expect((await resources.find({ org_id: 'org0' }, { sort: { created_at: -1 }, limit: 2 })).map((d) => d._id)).toEqual(['r48', 'r46']);
      expect(await resources.findOne({ org_id: 'org0', hash: 'h10' })).toMatchObject({ _id: 'r10' });
      expect(store.explainFind('resources', { org_id: 'org0', hash: 'h10' }).join(' ')).toContain('USING INDEX resources__org_hash');
      expect(store.explainCount('resources', { org_id: 'org1' }).join(' ')).toContain('COVERING INDEX resources__org_created');

      // Uniqueness holds on the columns, a missing key included (two documents lacking `hash`).
      await expect(resources.insertOne({ org_id: 'org0', hash: 'h10' })).rejects.toBeInstanceOf(ConflictError);
      await expect(resources.insertOne({ org_id: 'org9' })).rejects.toBeInstanceOf(ConflictError);

      // The replica learns the new columns: what it writes is found through them.
      const fromReplica = replica.collection<{ _id?: string; org_id: string; hash: string; created_at: string }>('resources');
      await fromReplica.insertOne({ org_id: 'org7', hash: 'hr', created_at: '2027-01-01T00:00:00.000Z' });
      await fromReplica.updateOne({ org_id: 'org0', hash: 'h0' }, { $set: { org_id: 'org8' } });
      expect(await resources.findOne({ org_id: 'org7', hash: 'hr' })).toMatchObject({ created_at: '2027-01-01T00:00:00.000Z' });
      expect(await resources.count({ org_id: 'org8' })).toBe(1);
      expect(await resources.count({ org_id: 'org0' })).toBe(24);
      await expect(fromReplica.insertOne({ org_id: 'org7', hash: 'hr', created_at: 'x' })).rejects.toBeInstanceOf(ConflictError);

      // Idempotent: a second ensureIndexes (the next start) changes nothing.
      await store.ensureIndexes('resources', SPECS);
      expect(await resources.count({})).toBe(52);
    } finally {
      await replica.close();
      await store.close();
    }
  });
});

describe('sqlite adapter: null-key triggers of an existing database', () => {
  it('are dropped by ensureIndexes, and a duplicate null key is still refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planwarden-trig-'));
    const file = join(dir, 'planwarden.sqlite');
    try {
      const first = new SqliteStore(file);
      await first.ensureIndexes('codes', [{ name: 'code', keys: { code: 1 }, unique: true }]);
      await first.close();
      // The null-key trigger older versions of the adapter created.
      const db = new Database(file);
      db.exec(`CREATE TRIGGER codes__code__ins BEFORE INSERT ON codes WHEN NEW."@code" IS NULL
        BEGIN SELECT RAISE(ABORT, 'duplicate key in codes.code') WHERE EXISTS (SELECT 1 FROM codes WHERE "@code" IS NULL); END`);
      db.close();
      const store = new SqliteStore(file);
      try {
        await store.ensureIndexes('codes', [{ name: 'code', keys: { code: 1 }, unique: true }]);
        const check = new Database(file, { readonly: true });
        expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([]);
        check.close();
        const codes = store.collection<{ _id?: string; code?: string | null; x?: number }>('codes');
        await codes.insertOne({ x: 1 });
        await expect(codes.insertOne({ code: null })).rejects.toBeInstanceOf(ConflictError);
        await codes.insertOne({ code: 'A' });
        await expect(codes.updateOne({ code: 'A' }, { $unset: { code: true } })).rejects.toBeInstanceOf(ConflictError);
        expect(await codes.count({})).toBe(2);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
