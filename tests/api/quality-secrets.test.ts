/**
 * Issue 15: a plain-text secret in a plan (the TF 0.14 corpus plan's RDS password, not marked
 * sensitive) reaches neither the store nor the model provider.
 */
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../helpers/test-server';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const PLAN = 'tfplan-json/infracost-aws-modules-tf014-large.json';
const LITERAL = 'YourPwdShouldBeLongAndSecure!';

const env = useServerWithFakeProvider();

describe('plain-text secrets are masked at ingest', () => {
  it('the plan really holds the literal, unmarked', () => {
    expect(corpusFile(PLAN).toString('utf8')).toContain(`"password": "${LITERAL}"`);
  });

  it('neither the stored resources nor any provider request carries it', async () => {
    const res = await env.server.api('/terraform/secrets-ns/analyze', {
      method: 'POST',
      json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: corpusFile(PLAN).toString('utf8') },
    });
    expect([200, 202]).toContain(res.status);
    const body = (await res.json()) as { job_id: string };
    for (let i = 0; i < 400; i += 1) {
      const job = (await (await env.server.api(`/jobs/${body.job_id}`)).json()) as { status: string };
      if (['done', 'failed', 'cancelled'].includes(job.status)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const stored = await (await env.server.api('/secrets-ns/resources')).text();
    expect(stored).toContain('aws_db_instance');
    expect(stored).toContain('password = (sensitive value)');
    expect(stored).not.toContain(LITERAL);
    expect(env.fake.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(env.fake.requests)).not.toContain(LITERAL);
  });
});
