import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body bytes as text (what a signature is computed over). */
  readonly raw: string;
}

/**
 * A real HTTP receiver on 127.0.0.1 for outbound webhooks. `next()` resolves with the next
 * delivery (already received or future), so tests wait on events, never on sleeps.
 * `hold(true)` keeps answers pending until `release()` (a receiver that does not answer).
 */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedHook[];
  next(): Promise<ReceivedHook>;
  /** Marks every delivery received so far as consumed. */
  skipAll(): void;
  hold(on: boolean): void;
  release(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const waiters: ((hook: ReceivedHook) => void)[] = [];
  let consumed = 0;
  let holding = false;
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      const hook = { path: req.url ?? '/', headers, raw: Buffer.concat(chunks).toString('utf8') };
      received.push(hook);
      const waiter = waiters.shift();
      if (waiter) {
        consumed += 1;
        waiter(hook);
      }
      if (holding) held.push(res);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    next() {
      if (consumed < received.length) return Promise.resolve(received[consumed++]);
      return new Promise((r) => waiters.push(r));
    },
    skipAll() {
      consumed = received.length;
    },
    hold(on) {
      holding = on;
    },
    release() {
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
