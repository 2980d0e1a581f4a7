import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on right now (bound, then released). */
export async function unusedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
