/**
 * `npm start` on an address another process already holds: one line on stderr that names the
 * address and the setting to change, exit code 1 (never a TypeError from a null address).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../helpers/server-process';

let holder: Server;
let port: number;
let dataDir: string;

beforeAll(async () => {
  holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  port = (holder.address() as AddressInfo).port;
  dataDir = mkdtempSync(join(tmpdir(), 'planwarden-port-'));
});

afterAll(async () => {
  await new Promise<void>((r) => holder.close(() => r()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the compiled server on a port in use', () => {
  it('names the address and PLANWARDEN_PORT on stderr and exits 1', async () => {
    const started = spawnServer({ dataDir, entry: 'compiled', env: { PLANWARDEN_PORT: String(port) } });
    const error = await started.then(
      async (s) => {
        await s.kill();
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    const message = error!.message;
    expect(message).toContain('server exited (1)');
    expect(message).toContain(`127.0.0.1:${port} is already in use`);
    expect(message).toContain('PLANWARDEN_PORT');
    expect(message).not.toContain('Cannot destructure');
  }, 120_000);
});
