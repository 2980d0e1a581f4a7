/**
 * Issue 15: a credential inside a JSON-encoded string attribute (an ECS task definition's
 * `container_definitions`, with `{"name": "DB_PASSWORD", "value": ...}` and a credential-named key
 * of an `environment` map) reaches neither the stored resource nor the model provider.
 */
import { describe, expect, it } from 'vitest';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const SECRET = 'hunter2-Correct-Horse';
const OTHER = 'Tr0ub4dor-and-3';

const env = useServerWithFakeProvider();

function planJson(): string {
  const containers = [
    {
      name: 'app',
      image: 'acme/app:1.4.2',
      essential: true,
      environment: [
        { name: 'DB_PASSWORD', value: SECRET },
        { name: 'LOG_LEVEL', value: 'info' },
      ],
    },
  ];
  const after = {
    family: 'app',
    container_definitions: JSON.stringify(containers),
    tags: { config: JSON.stringify({ DB_HOST: 'db.internal', REDIS_AUTH_TOKEN: OTHER }) },
  };
  return JSON.stringify({
    format_version: '1.2',
    resource_changes: [
      {
        address: 'aws_ecs_task_definition.app',
        mode: 'managed',
        type: 'aws_ecs_task_definition',
        name: 'app',
        change: { actions: ['create'], before: null, after, after_unknown: { arn: true }, before_sensitive: false, after_sensitive: {} },
      },
    ],
  });
}

describe('credentials inside JSON-string attributes are masked at ingest', () => {
  it('neither the stored resource nor the provider request carries them; the rest stays reviewable', async () => {
    const raw = planJson();
    expect(raw).toContain(SECRET);
    const res = await env.server.api('/terraform/json-secrets/analyze', {
      method: 'POST',
      json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: raw },
    });
    expect(res.status).toBe(200);
    const stored = await (await env.server.api('/json-secrets/resources')).text();
    expect(stored).toContain('aws_ecs_task_definition');
    expect(stored).toContain('LOG_LEVEL');
    expect(stored).toContain('(sensitive value)');
    for (const secret of [SECRET, OTHER]) expect(stored).not.toContain(secret);
    expect(env.fake.requests).toHaveLength(1);
    expect(env.fake.requests[0].user).toContain('DB_PASSWORD');
    for (const secret of [SECRET, OTHER]) expect(JSON.stringify(env.fake.requests)).not.toContain(secret);
  });
});
