import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Config } from './config';

/**
 * A 32-byte server key: the configured value when set; else, for the memory backend, a fresh
 * per-process key; else one generated once into `<data_dir>/<fileName>` (mode 0600; the data dir
 * is created 0700) and read back on every start. On `docdb` (several replicas share one database) the key must be configured,
 * because each replica's data dir would otherwise hold a different one; throws Error naming the
 * setting. Returns the configured string or the raw key bytes.
 */
export function serverKeyMaterial(config: Config, configured: string | null, fileName: string, setting: string): string | Buffer {
  if (configured) return configured;
  if (config.storage.backend === 'memory') return randomBytes(32);
  if (config.storage.backend === 'docdb') {
    throw new Error(`${setting} must be set when storage.backend is docdb: every replica needs the same key`);
  }
  const dir = resolve(config.data_dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, fileName);
  if (!existsSync(file)) {
    // 'wx': never overwrite a key another process wrote meanwhile; chmod undoes a wider umask.
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}
