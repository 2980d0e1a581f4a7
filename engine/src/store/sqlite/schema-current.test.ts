/**
 * Re-opening an existing database: ensureIndexes skips its schema transaction when everything is
 * in place (schema-current.ts), and still repairs whatever is not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors';
import type { IndexSpec } from '../port';
import { SqliteStore } from './store';

const SCHEMA = new Map<string, IndexSpec[]>([
  ['orders', [{ name: 'by_customer', keys: { customerId: 1, placed_at: -1 } }]],
  ['customers', [{ name: 'email', keys: { email: 1 } }]],
]);

describe('sqlite ensureIndexes on an existing database', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'planwarden-schema-current-'));
    file = join(dir, 'db.sqlite');
    const store = new SqliteStore(file);
    await store.ensureIndexesBatch(SCHEMA);
    await store.collection<{ _id?: string; email: string }>('customers').insertMany([{ email: 'a@example.test' }, { email: 'a@example.test' }]);
    await store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const indexes = () => {
    const db = new Database(file, { readonly: true });
    try {
      return (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%\\_\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[]
      ).map((r) => r.name);
    } finally {
      db.close();
    }
  };

  it('leaves a current schema as it is and the indexes keep answering', async () => {
    const store = new SqliteStore(file);
    await store.ensureIndexesBatch(SCHEMA);
    expect(await store.collection('customers').count({ email: 'a@example.test' })).toBe(2);
    expect(store.explainFind('orders', { customerId: 'c1' }).join(' ')).toContain('orders__by_customer');
    await store.close();
    expect(indexes()).toEqual(['customers__email', 'orders__by_customer']);
  });

  it('rebuilds an index dropped behind its back', async () => {
    const db = new Database(file);
    db.exec('DROP INDEX orders__by_customer');
    db.close();
    const store = new SqliteStore(file);
    await store.ensureIndexesBatch(SCHEMA);
    await store.close();
    expect(indexes()).toEqual(['customers__email', 'orders__by_customer']);
  });

  it('applies a changed spec: an index made unique refuses the duplicates already stored', async () => {
    const store = new SqliteStore(file);
    const changed = new Map(SCHEMA).set('customers', [{ name: 'email', keys: { email: 1 }, unique: true }]);
    await expect(store.ensureIndexesBatch(changed)).rejects.toBeInstanceOf(ConflictError);
    await store.close();
  });

  it('adds what a newly declared collection and index need', async () => {
    const store = new SqliteStore(file);
    const grown = new Map(SCHEMA).set('invoices', [{ name: 'due', keys: { due_at: 1 } }]);
    await store.ensureIndexesBatch(grown);
    await store.close();
    expect(indexes()).toEqual(['customers__email', 'invoices__due', 'orders__by_customer']);
  });

  it('checks one collection on its own: another collection missing an index is left to its own call', async () => {
    const db = new Database(file);
    db.exec('DROP INDEX orders__by_customer');
    db.exec('DROP INDEX customers__email');
    db.close();
    const store = new SqliteStore(file);
    await store.ensureIndexes('customers', SCHEMA.get('customers')!);
    expect(indexes()).toEqual(['customers__email']);
    await store.ensureIndexes('orders', SCHEMA.get('orders')!);
    await store.close();
    expect(indexes()).toEqual(['customers__email', 'orders__by_customer']);
  });
});
