/**
 * Issue 15: a plain-text secret in a plan (the TF 0.14 corpus plan's RDS password, not marked
 * sensitive) reaches neither the store nor the model provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

const PLAN = 'tfplan-json/infracost-aws-modules-tf014-large.json';
const LITERAL = 'YourPwdShouldBeLongAndSecure!';

let fake: FakeProvider;
let server: TestServer;
beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

describe('plain-text secrets are masked at ingest', () => {
  it('the plan really holds the literal, unmarked', () => {
    expect(corpusFile(PLAN).toString('utf8')).toContain(`"password": "${LITERAL}"`);
  });

  it('neither the stored resources nor any provider request carries it', async () => {
    const res = await server.api('/terraform/secrets-ns/analyze', {
      method: 'POST',
      json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: corpusFile(PLAN).toString('utf8') },
    });
    expect([200, 202]).toContain(res.status);
    const body = await res.json() as { job_id: string };
    for (let i = 0; i < 400; i += 1) {
      const job = await (await server.api(`/jobs/${body.job_id}`)).json() as { status: string };
      if (['done', 'failed', 'cancelled'].includes(job.status)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const stored = await (await server.api('/secrets-ns/resources')).text();
    expect(stored).toContain('aws_db_instance');
    expect(stored).toContain('password = (sensitive value)');
    expect(stored).not.toContain(LITERAL);
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(fake.requests)).not.toContain(LITERAL);
  });
});
