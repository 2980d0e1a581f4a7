import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { serverKeyMaterial } from './key-file';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(backend: 'sqlite' | 'memory' | 'docdb') {
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-key-'));
  dirs.push(dir);
  return loadConfig({ env: {}, cwd: dir, overrides: { data_dir: dir, storage: { backend } } });
}

describe('serverKeyMaterial', () => {
  it('prefers the configured value', () => {
    expect(serverKeyMaterial(config('sqlite'), 'configured', 'k.key', 'k')).toBe('configured');
  });

  it('generates a key once into the data dir (mode 0600) and reads the same one back', () => {
    const c = config('sqlite');
    const first = serverKeyMaterial(c, null, 'k.key', 'k') as Buffer;
    expect(first).toHaveLength(32);
    expect(serverKeyMaterial(c, null, 'k.key', 'k')).toEqual(first);
    expect(statSync(join(c.data_dir, 'k.key')).mode & 0o777).toBe(0o600);
  });

  it('gives the memory backend a fresh key per call and refuses docdb without a configured key', () => {
    const m = config('memory');
    expect(serverKeyMaterial(m, null, 'k.key', 'k')).not.toEqual(serverKeyMaterial(m, null, 'k.key', 'k'));
    expect(() => serverKeyMaterial(config('docdb'), null, 'k.key', 'secret_key (PLANWARDEN_SECRET_KEY)')).toThrow(/PLANWARDEN_SECRET_KEY\) must be set/);
  });
});
