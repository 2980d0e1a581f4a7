/**
 * Issue 15 "Plan context" over HTTP: a plan unit is analysed with the companions that configure
 * it (an S3 bucket with its public-access block), shown to the model as read-only context; the
 * analysis cache key includes the context digest, so an unchanged plan costs no call in a new
 * namespace and a changed companion re-analyses the unit it configures.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { UNIT_CONTEXT_BEGIN } from '../../engine/src/llm/prompt-context';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const env = useServerWithFakeProvider();
beforeEach(() => env.fake.reset());

/** `terraform show -json` of a bucket and its public-access block (as Terraform 1.x writes it). */
function planJson(blockPublicAcls: boolean): string {
  const change = (type: string, name: string, after: Record<string, unknown>, unknown: Record<string, unknown>) => ({
    address: `${type}.${name}`,
    mode: 'managed',
    type,
    name,
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: { actions: ['create'], before: null, after, after_unknown: unknown, before_sensitive: false, after_sensitive: {} },
  });
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.9.5',
    resource_changes: [
      change('aws_s3_bucket', 'data', { bucket: 'acme-data', force_destroy: false, tags: null }, { arn: true, id: true }),
      change(
        'aws_s3_bucket_public_access_block',
        'data',
        {
          block_public_acls: blockPublicAcls,
          block_public_policy: true,
          ignore_public_acls: true,
          restrict_public_buckets: true,
        },
        { bucket: true, id: true },
      ),
    ],
    configuration: {
      root_module: {
        resources: [
          { address: 'aws_s3_bucket.data', mode: 'managed', type: 'aws_s3_bucket', name: 'data', expressions: { bucket: { constant_value: 'acme-data' } } },
          {
            address: 'aws_s3_bucket_public_access_block.data',
            mode: 'managed',
            type: 'aws_s3_bucket_public_access_block',
            name: 'data',
            expressions: { bucket: { references: ['aws_s3_bucket.data.id', 'aws_s3_bucket.data'] }, block_public_acls: { constant_value: blockPublicAcls } },
          },
        ],
      },
    },
  });
}

async function analyse(namespace: string, raw: string): Promise<void> {
  const res = await env.server.api(`/terraform/${namespace}/analyze`, {
    method: 'POST',
    json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: raw },
  });
  expect(res.status).toBe(200); // two units: analysed inline
}

const bucketCalls = () => env.fake.requests.filter((r) => r.backend === 'ollama' && r.user.includes('- name: "aws_s3_bucket.data"'));

describe('plan context', () => {
  it('the bucket is analysed with its public-access block as context', async () => {
    await analyse('ctx-first', planJson(true));
    const [call] = bucketCalls();
    expect(call).toBeDefined();
    expect(call.user).toContain(UNIT_CONTEXT_BEGIN);
    expect(call.user).toContain('Context: do not report findings on these resources themselves');
    expect(call.user).toContain('# "aws_s3_bucket_public_access_block.data" ("create")');
    expect(call.user).toContain('"block_public_acls":true');
    expect(call.system).not.toContain('aws_s3_bucket_public_access_block.data'); // the cached prefix stays unit-independent
    const pabCall = env.fake.requests.find((r) => r.user.includes('- name: "aws_s3_bucket_public_access_block.data"'))!;
    expect(pabCall.user).not.toContain(UNIT_CONTEXT_BEGIN); // the reverse view is not sent
  });

  it('the same plan in a new namespace costs no provider call', async () => {
    await analyse('ctx-again', planJson(true));
    expect(env.fake.requests).toHaveLength(0);
    const resources = (await (await env.server.api('/ctx-again/resources')).json()) as { analysis: unknown }[];
    expect(resources).toHaveLength(2);
    expect(resources.every((r) => r.analysis !== null)).toBe(true);
  });

  it('a weakened companion re-analyses the bucket (same unit hash) with the new context', async () => {
    const before = (await (await env.server.api('/ctx-first/resources')).json()) as { hash: string; value: { type: string } }[];
    await analyse('ctx-weakened', planJson(false));
    const after = (await (await env.server.api('/ctx-weakened/resources')).json()) as { hash: string; value: { type: string } }[];
    const bucketHash = (list: typeof before) => list.find((r) => r.value.type === 'aws_s3_bucket')!.hash;
    expect(bucketHash(after)).toBe(bucketHash(before)); // triage records stay keyed by the same unit
    const calls = bucketCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].user).toContain('"block_public_acls":false');
    expect(env.fake.requests).toHaveLength(2); // the bucket and the changed block itself
  });

  it('client-led: the bucket is offered again by next once its context differs from its analysis', async () => {
    expect((await env.server.api('/terraform/ctx-client-same/ingest', { method: 'POST', body: planJson(false) })).status).toBe(201);
    expect((await env.server.api('/ctx-client-same/resource/next')).status).toBe(208);
    expect((await env.server.api('/terraform/ctx-client-back/ingest', { method: 'POST', body: planJson(true) })).status).toBe(201);
    const next = await env.server.api('/ctx-client-back/resource/next');
    expect(next.status).toBe(200);
    const offered = (await next.json()) as { value: { name: string }; context: string | null };
    expect(offered.value.name).toBe('aws_s3_bucket.data');
    // The client agent sees the companions the server-side model would see, fenced as untrusted.
    expect(offered.context).toContain('<<<UNIT_CONTEXT_BEGIN');
    expect(offered.context).toContain('aws_s3_bucket_public_access_block');
    expect(offered.context).toContain('"block_public_acls":true');
    expect(env.fake.requests).toHaveLength(0);
  });
});
