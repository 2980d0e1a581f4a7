import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisUnit } from '../core/unit';
import { startFakeProvider, type FakeProvider } from '../../../tests/fakes/llm-provider-server';
import { analyseUnit, UnitAnalysisError, type AnalysisSettings } from './analyse-unit';
import { createProvider } from './providers/index';
import { LLM_BACKENDS, type LlmBackend, type LlmProvider } from './types';

const RULES = `# AWS S3 rules

## S3-001: Bucket must not be public
Severity: HIGH
Flag \`acl = "public-read"\`.

## S3-002: Encryption at rest
Severity: MEDIUM
`;

function buildUnit(overrides: Partial<AnalysisUnit> = {}): AnalysisUnit {
  return {
    hash: 'a'.repeat(64),
    type: 'aws_s3_bucket',
    name: 'module.logs.aws_s3_bucket.this[0]',
    action: 'create',
    body: 'resource "aws_s3_bucket" "this" {\n  bucket = "logs"\n  acl    = "public-read"\n}',
    metadata: {},
    ...overrides,
  };
}

const SETTINGS: AnalysisSettings = { maxAttempts: 3, backoffSeconds: 1, timeoutSeconds: 5, maxOutputTokens: 1024 };
const MODELS: Record<LlmBackend, string> = { openai: 'gpt-4o-mini', anthropic: 'claude-haiku-4-5', ollama: 'llama3.1:8b' };

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  const pending = fake.pending();
  fake.reset();
  expect(pending).toBe(0);
});

function providerFor(backend: LlmBackend): LlmProvider {
  const baseUrl = backend === 'openai' ? fake.openaiBaseUrl : backend === 'anthropic' ? fake.anthropicBaseUrl : fake.ollamaHost;
  return createProvider({ backend, apiKey: backend === 'ollama' ? null : 'sk-test', baseUrl });
}

/** Records sleeps instead of waiting. */
function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

async function failure(promise: Promise<unknown>): Promise<UnitAnalysisError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnitAnalysisError);
  return err as UnitAnalysisError;
}

describe.each(LLM_BACKENDS)('analyseUnit over the real %s SDK against the fake', (backend) => {
  const base = () => ({ model: MODELS[backend], rules: RULES, unit: buildUnit(), settings: SETTINGS });

  it('parses a valid answer and meters the call', async () => {
    const { sleep, waits } = recordingSleep();
    const result = await analyseUnit(providerFor(backend), { ...base(), sleep });
    expect(result.payload.summary).toContain('module.logs.aws_s3_bucket.this[0]');
    expect(result.payload.findings).toEqual([
      expect.objectContaining({
        rule_id: 'S3-001',
        severity: 'HIGH',
        confidence: 'HIGH',
        evidence: ['resource "aws_s3_bucket" "this" {'],
        resource_address: 'module.logs.aws_s3_bucket.this[0]',
      }),
    ]);
    expect(result.droppedEvidence).toBe(0);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ attempt: 1, error: null, stopReason: 'stop' });
    expect(result.calls[0].inputTokens).toBeGreaterThan(100);
    expect(result.calls[0].outputTokens).toBeGreaterThan(10);
    expect(waits).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].backend).toBe(backend);
    expect(fake.requests[0].system).toContain('## S3-001: Bucket');
    expect(fake.requests[0].user).toContain('acl    = "public-read"');
  });

  it('retries 429 then 500 and succeeds on the third attempt', async () => {
    fake.script([{ status: 429, message: 'slow down' }, { status: 500, message: 'upstream broke' }, 'valid']);
    const { sleep, waits } = recordingSleep();
    const result = await analyseUnit(providerFor(backend), { ...base(), sleep, random: () => 0.5 });
    expect(result.payload.findings[0].rule_id).toBe('S3-001');
    expect(result.calls.map((c) => c.error)).toEqual(['slow down', 'upstream broke', null]);
    expect(result.calls.map((c) => c.stopReason)).toEqual([null, null, 'stop']);
    // Full jitter with random 0.5 and base 1 s: 0.5 * 1000, then 0.5 * 2000.
    expect(waits).toEqual([500, 1000]);
    expect(fake.requests).toHaveLength(3);
  });

  it('fails with reason parse after maxAttempts of garbage, tokens still metered', async () => {
    fake.script(['malformed', { text: 'no json here at all' }, { text: '{"summary": "", "findings": []}' }]);
    const { sleep, waits } = recordingSleep();
    const err = await failure(analyseUnit(providerFor(backend), { ...base(), sleep }));
    expect(err.reason).toBe('parse');
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/summary must not be empty|findings must hold at least one finding/);
    expect(err.calls).toHaveLength(3);
    expect(err.calls.every((c) => c.outputTokens > 0 && c.error !== null)).toBe(true);
    expect(waits).toHaveLength(2);
  });

  it('fails with reason truncated when every answer stops at the token limit', async () => {
    fake.script(['truncated', 'truncated', 'truncated']);
    const { sleep } = recordingSleep();
    const err = await failure(analyseUnit(providerFor(backend), { ...base(), sleep }));
    expect(err.reason).toBe('truncated');
    expect(err.message).toContain('1024');
    expect(err.calls.map((c) => c.stopReason)).toEqual(['length', 'length', 'length']);
  });

  it('recovers from a truncated answer on the next attempt', async () => {
    fake.script(['truncated', 'valid']);
    const { sleep } = recordingSleep();
    const result = await analyseUnit(providerFor(backend), { ...base(), sleep });
    expect(result.calls.map((c) => c.stopReason)).toEqual(['length', 'stop']);
    expect(result.calls[0].error).toMatch(/truncated/);
  });

  it('times out a slow answer and retries it', async () => {
    fake.script(['slow', 'valid']);
    const { sleep } = recordingSleep();
    const started = Date.now();
    const result = await analyseUnit(providerFor(backend), { ...base(), settings: { ...SETTINGS, timeoutSeconds: 0.3 }, sleep });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.calls).toHaveLength(2);
    expect(result.calls[0].error).toBe('LLM call timed out after 0.3s');
    expect(result.calls[0].durationMs).toBeGreaterThanOrEqual(250);
  });

  it('fails with reason provider after every attempt timed out', async () => {
    fake.setLatency(1_000);
    const { sleep } = recordingSleep();
    const err = await failure(analyseUnit(providerFor(backend), { ...base(), settings: { ...SETTINGS, maxAttempts: 2, timeoutSeconds: 0.2 }, sleep }));
    expect(err.reason).toBe('provider');
    expect(err.providerMessage).toBe('LLM call timed out after 0.2s');
    expect(err.calls).toHaveLength(2);
  });

  it("fails at once on 401 with the provider's own message", async () => {
    fake.script([{ status: 401, message: 'invalid key for this test' }]);
    const { sleep, waits } = recordingSleep();
    const err = await failure(analyseUnit(providerFor(backend), { ...base(), sleep }));
    expect(err.reason).toBe('provider');
    expect(err.providerMessage).toBe('invalid key for this test');
    expect(err.providerStatus).toBe(401);
    expect(err.message).toContain('invalid key for this test');
    expect(err.calls).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('fails at once on 400', async () => {
    fake.script([{ status: 400, message: 'max_tokens: too large' }]);
    const err = await failure(analyseUnit(providerFor(backend), { ...base(), sleep: async () => {} }));
    expect(err.providerStatus).toBe(400);
    expect(err.calls).toHaveLength(1);
  });

  it('drops evidence that is not in the body and lowers confidence', async () => {
    const answer = {
      summary: 'Public bucket.',
      findings: [
        {
          title: 'Public ACL',
          severity: 'high',
          rule_id: 'S3-001',
          risk: 'r',
          why_it_matters: 'w',
          suggested_next_step: 's',
          confidence: 'high',
          evidence: ['acl    = "public-read"', 'acl = "private"  # invented'],
        },
      ],
    };
    fake.script([{ text: `Here you go:\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\`` }]);
    const result = await analyseUnit(providerFor(backend), { ...base(), sleep: async () => {} });
    expect(result.droppedEvidence).toBe(1);
    expect(result.payload.findings[0]).toMatchObject({
      severity: 'HIGH',
      confidence: 'MEDIUM',
      evidence: ['acl    = "public-read"'],
      tags: [],
      resource_address: 'module.logs.aws_s3_bucket.this[0]',
    });
  });

  it('stops when the caller aborts (no retry)', async () => {
    fake.script(['slow']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await failure(analyseUnit(providerFor(backend), { ...base(), signal: controller.signal, sleep: async () => {} }));
    expect(err.reason).toBe('provider');
    expect(err.providerMessage).toBe('LLM call aborted');
    expect(err.calls).toHaveLength(1);
  });
});

describe('analyseUnit with one attempt', () => {
  it('does not retry when maxAttempts is 1', async () => {
    fake.script([{ status: 503 }]);
    const err = await failure(
      analyseUnit(providerFor('openai'), {
        model: 'gpt-4o',
        rules: RULES,
        unit: buildUnit(),
        settings: { ...SETTINGS, maxAttempts: 1 },
        sleep: async () => {},
      }),
    );
    expect(err.reason).toBe('provider');
    expect(err.providerStatus).toBe(503);
    expect(err.calls).toHaveLength(1);
  });
});
