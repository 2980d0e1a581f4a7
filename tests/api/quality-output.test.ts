/**
 * Issue 15 "Enforced output" and "Local models", seen from the provider's side (the fake records
 * every request): the schema each backend receives, rule_id an enum of the rules sent, an
 * invented rule id refused on the model path (retry) and on the client-led PUT (422), Ollama's
 * num_ctx sized from the counted prompt, an oversized prompt refused, a truncated one retried.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { corpusFile } from '../helpers/test-server';
import { countTokens } from '../../engine/src/llm/tokens';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const PLAN = 'tfplan-json/terraform-showjson-basic-delete.json'; // 2 units
const env = useServerWithFakeProvider();
beforeEach(() => env.fake.reset());

type Json = Record<string, any>;
let nsCounter = 0;
async function analyze(backend: string, model: string, plan = PLAN) {
  const ns = `quality-out-${(nsCounter += 1)}`;
  const raw = corpusFile(plan)
    .toString('utf8')
    .replaceAll('"name":', `"name" :`)
    .replace(/"address":\s*"/g, `"address": "n${nsCounter}_`); // fresh unit hashes per call
  const res = await env.server.api(`/terraform/${ns}/analyze`, {
    method: 'POST',
    json: { llm_backend: backend, model, api_key: backend === 'ollama' ? null : 'sk-test', raw_input: raw },
  });
  return { res, body: (await res.json()) as Json, ns };
}
const ruleIdsIn = (system: string) => [...system.matchAll(/^## ([^\s:]+):/gm)].map((m) => m[1]);

describe('the schema goes with every request', () => {
  it('openai: strict json_schema whose rule_id enum is the rules sent plus NO-FINDINGS', async () => {
    const { res } = await analyze('openai', 'gpt-4o-mini');
    expect(res.status).toBe(200);
    const calls = env.fake.requests.filter((r) => r.backend === 'openai');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const format = (call.body as Json).response_format;
      expect(format).toMatchObject({ type: 'json_schema', json_schema: { name: 'submit_analysis', strict: true } });
      const ruleEnum = format.json_schema.schema.properties.findings.items.properties.rule_id.enum;
      expect(ruleEnum).toEqual([...ruleIdsIn(call.system), 'NO-FINDINGS']);
    }
  });

  it('anthropic: one forced tool carrying the same schema', async () => {
    const { res } = await analyze('anthropic', 'claude-haiku-4-5');
    expect(res.status).toBe(200);
    const call = env.fake.requests.find((r) => r.backend === 'anthropic')!;
    const body = call.body as Json;
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'submit_analysis' });
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0].input_schema.properties.findings.items.properties.rule_id.enum).toEqual([...ruleIdsIn(call.system), 'NO-FINDINGS']);
  });

  it('ollama: the schema as format, num_ctx at least the prompt tokens plus the output budget', async () => {
    const { res } = await analyze('ollama', 'llama3.1:8b');
    expect(res.status).toBe(200);
    expect(env.fake.showRequests).toEqual([{ model: 'llama3.1:8b' }]);
    for (const call of env.fake.requests.filter((r) => r.backend === 'ollama')) {
      const body = call.body as Json;
      expect(body.format.properties.findings.items.properties.rule_id.enum).toEqual([...ruleIdsIn(call.system), 'NO-FINDINGS']);
      const promptTokens = countTokens(call.system) + countTokens(call.user);
      expect(body.options.num_ctx).toBeGreaterThanOrEqual(promptTokens + body.options.num_predict);
    }
  });
});

describe('refusals', () => {
  const invented = JSON.stringify({
    summary: 's',
    findings: [
      {
        title: 't',
        severity: 'HIGH',
        rule_id: 'TF-MADE-UP-RULE',
        risk: 'r',
        why_it_matters: 'w',
        suggested_next_step: 'n',
        confidence: 'HIGH',
        evidence: [],
        resource_address: 'a',
        tags: [],
      },
    ],
  });

  it('a model answer with an invented rule id fails the attempt and is retried', async () => {
    env.fake.script([{ text: invented }]);
    const { res, ns } = await analyze('openai', 'gpt-4o-mini');
    expect(res.status).toBe(200);
    expect(env.fake.requests.filter((r) => r.backend === 'openai')).toHaveLength(3); // 2 units + 1 retry
    const stored = await (await env.server.api(`/${ns}/resources`)).text();
    expect(stored).not.toContain('TF-MADE-UP-RULE');
  });

  it('every attempt inventing a rule id fails the unit with a message naming it', async () => {
    env.fake.script(Array.from({ length: 2 * env.server.config.analysis.llm_max_attempts }, () => ({ text: invented }))); // both units, every attempt
    const { res, body } = await analyze('openai', 'gpt-4o-mini');
    expect(res.status).toBe(502);
    expect(body.detail).toContain('TF-MADE-UP-RULE');
  });

  it('a client-led PUT with an invented rule id answers 422 naming it; evidence is verified like the model path', async () => {
    const units = (await (
      await env.server.api('/terraform/quality-put/ingest', {
        method: 'POST',
        body: new Uint8Array(corpusFile('tfplan-json/checkov-aws-replace-create-delete.json')),
      })
    ).json()) as { hash: string; name: string; body: string }[];
    const unit = units[0];
    const finding = (rule_id: string, evidence: string[]) => ({
      title: 't',
      severity: 'HIGH',
      rule_id,
      risk: 'r',
      why_it_matters: 'w',
      suggested_next_step: 'n',
      confidence: 'HIGH',
      evidence,
      resource_address: unit.name,
      tags: [],
    });
    const bad = await env.server.api(`/resource/${unit.hash}/analysis`, { method: 'PUT', json: { summary: 's', findings: [finding('TF-MADE-UP-RULE', [])] } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Json).detail).toContain("'TF-MADE-UP-RULE'");
    expect(((await (await env.server.api(`/resource/${unit.hash}`)).json()) as Json).analysis).toBeNull();

    const realLine = unit.body.split('\n')[0].trim();
    const ok = await env.server.api(`/resource/${unit.hash}/analysis`, {
      method: 'PUT',
      json: { summary: 's', findings: [finding('TF-GEN-SECRET-PLAINTEXT', [realLine, 'password = "invented"'])] },
    });
    expect(ok.status).toBe(200);
    const stored = ((await ok.json()) as Json).analysis.findings[0];
    expect(stored.evidence).toEqual([realLine]);
    expect(stored.confidence).toBe('MEDIUM');
  });

  it('ollama: a prompt above the model context length is refused naming model and sizes', async () => {
    env.fake.setContextLength(1024);
    const { res, body } = await analyze('ollama', 'llama3.1:8b');
    expect(res.status).toBe(502);
    expect(body.detail).toMatch(/Prompt too large for Ollama model 'llama3.1:8b': \d+ prompt tokens .* context length of 1024 tokens/);
    expect(env.fake.requests.filter((r) => r.backend === 'ollama')).toHaveLength(0);
  });

  it('ollama: a prompt the model evaluated only in part fails the attempt and is retried', async () => {
    env.fake.script(['prompt-truncated']);
    const { res } = await analyze('ollama', 'llama3.1:8b');
    expect(res.status).toBe(200);
    expect(env.fake.requests.filter((r) => r.backend === 'ollama')).toHaveLength(3); // 2 units + 1 retry
  });
});
