import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../../../tests/fakes/llm-provider-server';
import { createProvider } from './providers/index';
import { LLM_BACKENDS, ProviderError, type LlmBackend, type LlmProvider, type LlmRequest } from './types';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.reset();
});

function baseUrlFor(backend: LlmBackend): string {
  return backend === 'openai' ? fake.openaiBaseUrl : backend === 'anthropic' ? fake.anthropicBaseUrl : fake.ollamaHost;
}
function providerFor(backend: LlmBackend, apiKey: string | null = backend === 'ollama' ? null : 'sk-test'): LlmProvider {
  return createProvider({ backend, apiKey, baseUrl: baseUrlFor(backend) });
}
const REQUEST: LlmRequest = { model: 'm-1', system: 'SYSTEM TEXT', user: 'USER TEXT', maxOutputTokens: 777, timeoutMs: 5_000 };

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('wire format each SDK sends', () => {
  it('openai: system + user messages, JSON mode, max_completion_tokens, bearer key', async () => {
    const res = await providerFor('openai').complete(REQUEST);
    expect(res.stopReason).toBe('stop');
    const req = fake.requests[0];
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.body).toMatchObject({
      model: 'm-1',
      messages: [
        { role: 'system', content: 'SYSTEM TEXT' },
        { role: 'user', content: 'USER TEXT' },
      ],
      max_completion_tokens: 777,
      response_format: { type: 'json_object' },
    });
    expect(req.headers['x-stainless-retry-count']).toBe('0');
  });

  it('anthropic: cached system block, max_tokens, x-api-key, cache tokens counted as input', async () => {
    const provider = providerFor('anthropic');
    const first = await provider.complete(REQUEST);
    const second = await provider.complete(REQUEST);
    const req = fake.requests[0];
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('sk-test');
    expect(req.headers['anthropic-version']).toBeTruthy();
    expect(req.body).toMatchObject({
      model: 'm-1',
      max_tokens: 777,
      system: [{ type: 'text', text: 'SYSTEM TEXT', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'USER TEXT' }],
    });
    // Fake: written to cache on the first call, read from it on the second; totals match.
    expect(first.inputTokens).toBe(second.inputTokens);
    expect(first.inputTokens).toBe(Math.ceil('SYSTEM TEXT'.length / 4) + Math.ceil('USER TEXT'.length / 4));
  });

  it('ollama: non-streaming /api/chat with format json and num_predict, no auth by default', async () => {
    const res = await providerFor('ollama').complete(REQUEST);
    expect(res.inputTokens).toBeGreaterThan(0);
    const req = fake.requests[0];
    expect(req.path).toBe('/api/chat');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toMatchObject({
      model: 'm-1',
      stream: false,
      format: 'json',
      options: { num_predict: 777 },
      messages: [
        { role: 'system', content: 'SYSTEM TEXT' },
        { role: 'user', content: 'USER TEXT' },
      ],
    });
  });

  it('ollama: sends a bearer token when a key is configured', async () => {
    await providerFor('ollama', 'proxy-token').complete(REQUEST);
    expect(fake.requests[0].headers.authorization).toBe('Bearer proxy-token');
  });
});

describe.each(LLM_BACKENDS)('%s provider errors and stop reasons', (backend) => {
  it('maps truncation to stopReason length', async () => {
    fake.script(['truncated']);
    const res = await providerFor(backend).complete(REQUEST);
    expect(res.stopReason).toBe('length');
  });

  it.each([
    [429, true],
    [500, true],
    [503, true],
    [408, true],
    [409, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
  ])('HTTP %i → retryable %s, provider message, exactly one request', async (status, retryable) => {
    fake.script([{ status, message: `message for ${status}` }]);
    const err = await providerError(providerFor(backend).complete(REQUEST));
    expect(err).toMatchObject({ status, retryable, kind: 'http', message: `message for ${status}` });
    expect(fake.requests).toHaveLength(1);
  });

  it('times out with kind timeout (retryable) when the answer is later than timeoutMs', async () => {
    fake.setLatency(2_000);
    const started = Date.now();
    const err = await providerError(providerFor(backend).complete({ ...REQUEST, timeoutMs: 200 }));
    expect(err).toMatchObject({ kind: 'timeout', retryable: true, status: null, message: 'LLM call timed out after 0.2s' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports cancellation as kind aborted (not retryable)', async () => {
    fake.setLatency(2_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await providerError(providerFor(backend).complete({ ...REQUEST, signal: controller.signal }));
    expect(err).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it('does not call at all with an already aborted signal', async () => {
    const err = await providerError(providerFor(backend).complete({ ...REQUEST, signal: AbortSignal.abort() }));
    expect(err.kind).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });

  it('maps a refused connection to kind network (retryable)', async () => {
    const port = await closedPort();
    const base = backend === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
    const provider = createProvider({ backend, apiKey: backend === 'ollama' ? null : 'k', baseUrl: base });
    const err = await providerError(provider.complete(REQUEST));
    expect(err).toMatchObject({ kind: 'network', retryable: true, status: null });
  });
});

describe('base URL resolution', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'OLLAMA_HOST']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it('falls back to OPENAI_BASE_URL / ANTHROPIC_BASE_URL / OLLAMA_HOST', async () => {
    process.env.OPENAI_BASE_URL = fake.openaiBaseUrl;
    process.env.ANTHROPIC_BASE_URL = fake.anthropicBaseUrl;
    process.env.OLLAMA_HOST = fake.ollamaHost;
    for (const backend of LLM_BACKENDS) {
      await createProvider({ backend, apiKey: backend === 'ollama' ? null : 'k' }).complete(REQUEST);
    }
    expect(fake.requests.map((r) => r.backend)).toEqual(['openai', 'anthropic', 'ollama']);
  });

  it('prefers an explicit baseUrl over the environment', async () => {
    process.env.OPENAI_BASE_URL = `http://127.0.0.1:${await closedPort()}/v1`;
    await createProvider({ backend: 'openai', apiKey: 'k', baseUrl: fake.openaiBaseUrl }).complete(REQUEST);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('createProvider', () => {
  it('refuses openai and anthropic without a key', () => {
    expect(() => createProvider({ backend: 'openai', apiKey: null })).toThrow(ProviderError);
    expect(() => createProvider({ backend: 'anthropic', apiKey: '' })).toThrow(/No API key/);
  });

  it('accepts ollama without a key', () => {
    expect(createProvider({ backend: 'ollama', apiKey: null }).backend).toBe('ollama');
  });
});
