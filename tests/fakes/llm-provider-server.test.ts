import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisUnit } from '../../engine/src/core/unit';
import { AnalysisPayloadSchema } from '../../engine/src/core/payload';
import { buildPrompt } from '../../engine/src/llm/prompt';
import { pickRuleId, startFakeProvider, type FakeProvider } from './llm-provider-server';

const UNIT: AnalysisUnit = {
  hash: 'e'.repeat(64),
  type: 'kubernetes_deployment',
  name: 'Deployment/default/web',
  action: 'create',
  body: '\n  securityContext:\n    privileged: true',
  metadata: {},
};
const PROMPT = buildPrompt({ rules: '# K8s\n\n## ID: K8S-007 Privileged\nSeverity: HIGH\n', unit: UNIT });

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => fake.reset());

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

const openaiBody = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: PROMPT.system },
    { role: 'user', content: PROMPT.user },
  ],
};
const anthropicBody = { model: 'claude-haiku-4-5', max_tokens: 100, system: PROMPT.system, messages: [{ role: 'user', content: PROMPT.user }] };
const ollamaBody = { model: 'llama3.1:8b', stream: false, messages: openaiBody.messages };
const OPENAI_AUTH = { authorization: 'Bearer sk' };
const ANTHROPIC_AUTH = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };

function expectDefaultPayload(text: string): void {
  const payload = AnalysisPayloadSchema.parse(JSON.parse(text));
  expect(payload.findings).toEqual([
    expect.objectContaining({
      rule_id: 'K8S-007',
      severity: 'HIGH',
      confidence: 'HIGH',
      evidence: ['securityContext:'],
      resource_address: 'Deployment/default/web',
    }),
  ]);
}

describe('fake LLM provider: default answers per wire protocol', () => {
  it('OpenAI chat completion on /v1/chat/completions and /chat/completions', async () => {
    for (const path of ['/v1/chat/completions', '/chat/completions']) {
      const { status, json } = await post(path, openaiBody, OPENAI_AUTH);
      expect(status).toBe(200);
      expect(json).toMatchObject({
        object: 'chat.completion',
        model: 'gpt-4o',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant' } }],
      });
      expect(json.usage.prompt_tokens).toBe(Math.ceil(PROMPT.system.length / 4) + Math.ceil(PROMPT.user.length / 4));
      expectDefaultPayload(json.choices[0].message.content);
    }
    expect(fake.requests.map((r) => [r.backend, r.system === PROMPT.system, r.user === PROMPT.user])).toEqual([
      ['openai', true, true],
      ['openai', true, true],
    ]);
  });

  it('Anthropic message on /v1/messages (system as string or blocks)', async () => {
    const { status, json } = await post('/v1/messages', anthropicBody, ANTHROPIC_AUTH);
    expect(status).toBe(200);
    expect(json).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text' }] });
    expect(json.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expectDefaultPayload(json.content[0].text);
    await post('/v1/messages', { ...anthropicBody, system: [{ type: 'text', text: PROMPT.system }] }, ANTHROPIC_AUTH);
    expect(fake.requests[1].system).toBe(PROMPT.system);
  });

  it('Ollama chat on /api/chat, non-streaming and streaming', async () => {
    const { status, json } = await post('/api/chat', ollamaBody);
    expect(status).toBe(200);
    expect(json).toMatchObject({ done: true, done_reason: 'stop', message: { role: 'assistant' } });
    expect(json.prompt_eval_count).toBeGreaterThan(0);
    expectDefaultPayload(json.message.content);

    const res = await fetch(`${fake.url}/api/chat`, { method: 'POST', body: JSON.stringify({ ...ollamaBody, stream: undefined }) });
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ done: true });
    expectDefaultPayload(lines.map((l) => l.message.content).join(''));
  });
});

describe('fake LLM provider: scripts', () => {
  it('answers scripted steps in order, then falls back to valid', async () => {
    fake.script(['malformed', 'truncated', { text: 'plain' }, { status: 429, message: 'slow down' }]);
    const a = await post('/api/chat', ollamaBody);
    expect(() => JSON.parse(a.json.message.content)).toThrow();
    const b = await post('/api/chat', ollamaBody);
    expect(b.json.done_reason).toBe('length');
    const c = await post('/api/chat', ollamaBody);
    expect(c.json.message.content).toBe('plain');
    const d = await post('/api/chat', ollamaBody);
    expect(d).toMatchObject({ status: 429, json: { error: 'slow down' } });
    expect(d.headers.get('retry-after')).toBe('1');
    expect(fake.pending()).toBe(0);
    expect((await post('/api/chat', ollamaBody)).status).toBe(200);
  });

  it("uses each provider's error body shape", async () => {
    fake.script([{ status: 401 }, { status: 529, message: 'Overloaded' }, { status: 500 }]);
    const o = await post('/v1/chat/completions', openaiBody, OPENAI_AUTH);
    expect(o).toMatchObject({ status: 401, json: { error: { type: 'invalid_request_error', code: 'invalid_api_key' } } });
    expect(o.json.error.message).toMatch(/Incorrect API key/);
    const a = await post('/v1/messages', anthropicBody, ANTHROPIC_AUTH);
    expect(a).toMatchObject({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    const l = await post('/api/chat', ollamaBody);
    expect(l.status).toBe(500);
    expect(typeof l.json.error).toBe('string');
  });

  it('marks truncation per protocol', async () => {
    fake.script(['truncated', 'truncated']);
    expect((await post('/v1/chat/completions', openaiBody, OPENAI_AUTH)).json.choices[0].finish_reason).toBe('length');
    expect((await post('/v1/messages', anthropicBody, ANTHROPIC_AUTH)).json.stop_reason).toBe('max_tokens');
  });

  it('delays answers by the configured latency', async () => {
    fake.setLatency(150);
    const started = Date.now();
    await post('/api/chat', ollamaBody);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('holds a slow step until the client gives up', async () => {
    fake.script(['slow']);
    const started = Date.now();
    await expect(fetch(`${fake.url}/api/chat`, { method: 'POST', body: JSON.stringify(ollamaBody), signal: AbortSignal.timeout(200) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('fake LLM provider: protocol checks', () => {
  it('rejects calls without the credential the real service needs', async () => {
    expect((await post('/v1/chat/completions', openaiBody)).status).toBe(401);
    expect((await post('/v1/messages', anthropicBody)).json.error.type).toBe('authentication_error');
    expect((await post('/v1/messages', anthropicBody, { 'x-api-key': 'k' })).status).toBe(400);
  });

  it('answers 404 for unknown routes and 400 for a non-JSON body', async () => {
    expect((await post('/v1/completions', openaiBody)).status).toBe(404);
    const res = await fetch(`${fake.url}/api/chat`, { method: 'POST', body: 'not json' });
    expect(res.status).toBe(400);
  });
});

describe('pickRuleId', () => {
  it('finds the first rule id in common Markdown shapes', () => {
    expect(pickRuleId('# T\n## ID: S3-001 Public\n## ID: S3-002')).toBe('S3-001');
    expect(pickRuleId('### Public bucket\n- **ID:** `AWS_S3_PUBLIC`\n')).toBe('AWS_S3_PUBLIC');
    expect(pickRuleId('rule_id: tf-sg-open-ingress\n')).toBe('tf-sg-open-ingress');
    expect(pickRuleId('## DOCKER-003: root user\n')).toBe('DOCKER-003');
    expect(pickRuleId('# Generic\n\n## GEN-SECRET-IN-CODE: Secret\n```yaml\n- id: step1\n```\n## GEN-TLS: x')).toBe('GEN-SECRET-IN-CODE');
    expect(pickRuleId('nothing here')).toBeNull();
  });
});
