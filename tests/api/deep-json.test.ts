import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server';

const DEPTH = 10_000;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
/** A plan JSON whose one resource change carries a 10,000-deep `after` value. */
const deepPlan =
  `{"format_version":"1.2","resource_changes":[{"address":"aws_s3_bucket.b","type":"aws_s3_bucket","name":"b","mode":"managed",` +
  `"change":{"actions":["create"],"before":null,"after":${deepObject}}}]}`;

async function expectTooDeep(res: Response): Promise<void> {
  const body = (await res.json()) as { detail: string };
  expect(res.status).toBe(422);
  expect(body.detail).toMatch(/^JSON nested too deeply/);
  expect(body.detail).not.toMatch(/call stack/i);
}

describe('deeply nested JSON gets a plain 422, never a stack-overflow message', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('a 10,000-deep body on a JSON route', async () => {
    await expectTooDeep(await server.api('/feedback', { method: 'POST', body: deepObject, headers: { 'content-type': 'application/json' } }));
  });

  it('a 10,000-deep plan on an ingest route', async () => {
    await expectTooDeep(await server.api('/terraform/deep/ingest', { method: 'POST', body: deepPlan }));
  });

  it('a 10,000-deep plan inside the raw_input of an analyze call', async () => {
    const res = await server.api('/terraform/deep/analyze', {
      method: 'POST',
      json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test', raw_input: deepPlan },
    });
    await expectTooDeep(res);
  });
});
