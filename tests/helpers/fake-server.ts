/**
 * The lifecycle most API tests share: a fake LLM provider on 127.0.0.1 and the real server pointed
 * at it, started before the file's tests and closed after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { startTestServer, type TestServer } from './test-server';

export interface FakeServerEnv {
  /** The fake provider (set once `beforeAll` has run). */
  readonly fake: FakeProvider;
  /** The server whose three providers point at `fake`. */
  readonly server: TestServer;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start a fake provider and a test server using it
 * (memory storage, silent logs; `options` as for startTestServer) and close both. Read `fake` and
 * `server` from the returned object inside tests, not at module level.
 */
export function useServerWithFakeProvider(options: Omit<Parameters<typeof startTestServer>[0] & object, 'fake'> = {}): FakeServerEnv {
  const env = {} as { fake: FakeProvider; server: TestServer };
  beforeAll(async () => {
    env.fake = await startFakeProvider();
    env.server = await startTestServer({ ...options, fake: env.fake });
  });
  afterAll(async () => {
    await env.server?.close();
    await env.fake?.close();
  });
  return env;
}
