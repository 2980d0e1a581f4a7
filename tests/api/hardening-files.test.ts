import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('files the server creates are private to its user', () => {
  let parent: string;
  let dataDir: string;
  let server: TestServer;
  const previousUmask = process.umask(0o022); // the usual umask: files 0644 and dirs 0755 unless the code says otherwise
  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'planwarden-modes-'));
    dataDir = join(parent, 'data', 'nested');
    server = await startTestServer({ overrides: { data_dir: dataDir, storage: { backend: 'sqlite' } } });
    // A write, so the WAL and shared-memory files exist while the server runs.
    expect((await server.api('/auth/keys', { method: 'POST', json: { name: 'ci' } })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    process.umask(previousUmask);
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates the data dir 0700', () => {
    expect(mode(dataDir).toString(8)).toBe('700');
    expect(mode(join(parent, 'data')).toString(8)).toBe('700');
  });

  it('creates the SQLite database and its -wal/-shm files 0600', () => {
    for (const name of ['planwarden.sqlite', 'planwarden.sqlite-wal', 'planwarden.sqlite-shm']) {
      const file = join(dataDir, name);
      expect(existsSync(file), name).toBe(true);
      expect(mode(file).toString(8), name).toBe('600');
    }
  });

  it('creates the generated key files 0600', () => {
    for (const name of ['secret.key', 'jwt.key']) {
      expect(mode(join(dataDir, name)).toString(8), name).toBe('600');
    }
  });
});
