import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
let receiver: WebhookReceiver;
const PATH = '/orgs/default/integrations/review-webhook';

beforeAll(async () => {
  // The receiver listens on loopback, which the egress policy refuses unless the operator allowlists it.
  server = await startTestServer({ overrides: { egress: { allowlist: ['127.0.0.1'] } } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

/** Client-led: ingest a corpus plan (each test its own: resources are shared by hash) and submit each unit's analysis with `confidence`; returns the hashes. */
async function analyseClientSide(namespace: string, plan: string, confidence: 'LOW' | 'HIGH', ruleId = 'TF-GEN-SECRET-PLAINTEXT'): Promise<string[]> {
  await server.api(`/terraform/${namespace}/ingest`, { method: 'POST', body: new Uint8Array(corpusFile(`tfplan-json/${plan}.json`)) });
  const hashes: string[] = [];
  for (;;) {
    const res = await server.api(`/${namespace}/resource/next`);
    if (res.status === 208) return hashes;
    const next = (await res.json()) as { hash: string; value: { name: string } };
    hashes.push(next.hash);
    await server.api(`/resource/${next.hash}/analysis`, {
      method: 'PUT',
      json: {
        summary: 's',
        findings: [
          {
            title: 't',
            severity: 'HIGH',
            rule_id: ruleId,
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 'n',
            confidence,
            evidence: [],
            resource_address: next.value.name,
            tags: [],
          },
        ],
      },
    });
  }
}

describe('review webhook config', () => {
  it('PUT/GET/DELETE with a write-only secret', async () => {
    expect((await server.api(PATH)).status).toBe(404);
    const put = await server.api(PATH, { method: 'PUT', json: { url: receiver.url, secret: 's3cret-value' } });
    expect(put.status).toBe(200);
    const text = await put.text();
    expect(text).not.toContain('s3cret-value');
    expect(JSON.parse(text)).toEqual({ url: receiver.url, enabled: true, has_secret: true, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(await (await server.api(PATH)).json()).toMatchObject({ has_secret: true });
    const rows = await server.services.engine.stores.store.collection('review_webhooks').find({});
    expect(JSON.stringify(rows)).not.toContain('s3cret-value');
    // Omitting the secret clears it.
    expect(await (await server.api(PATH, { method: 'PUT', json: { url: receiver.url, enabled: false } })).json()).toMatchObject({
      has_secret: false,
      enabled: false,
    });
    expect((await server.api(PATH, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(PATH, { method: 'DELETE' })).status).toBe(404);
    expect((await server.api(PATH)).status).toBe(404);
  });

  it('admin only, own org only, validated body', async () => {
    expect((await server.api(PATH, { headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    const member = await roleHeaders(server, 'member');
    expect((await server.api(PATH, { method: 'PUT', headers: member, json: { url: receiver.url } })).status).toBe(403);
    expect((await server.api(PATH, { headers: member })).status).toBe(403);
    const other = await otherOrg(server);
    expect((await server.api(PATH, { method: 'PUT', headers: other.headers, json: { url: receiver.url } })).status).toBe(404);
    expect((await server.api(`/orgs/${other.orgId}/integrations/review-webhook`, { method: 'PUT', json: { url: receiver.url } })).status).toBe(404);
    for (const body of [{}, { url: 'ftp://example.com/x' }, { url: 'not a url' }, { url: receiver.url, enabled: 'yes' }]) {
      expect((await server.api(PATH, { method: 'PUT', json: body })).status).toBe(422);
    }
  });
});

describe('review webhook delivery', () => {
  it('fires automatically for a new needs_review record, signed with HMAC-SHA256', async () => {
    await server.api(PATH, { method: 'PUT', json: { url: receiver.url, secret: 'hook-secret' } });
    receiver.skipAll();
    const hashes = await analyseClientSide('hook-auto', 'terraform-showjson-basic-delete', 'LOW');
    expect(hashes.length).toBeGreaterThan(0);
    const hooks = await Promise.all(hashes.map(() => receiver.next()));
    const hash = hashes[0];
    const hook = hooks.find((h) => (JSON.parse(h.raw) as { resource_hash: string }).resource_hash === hash)!;
    expect(hook.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', 'hook-secret').update(hook.raw).digest('hex')}`);
    const body = JSON.parse(hook.raw) as Record<string, unknown>;
    expect(body).toEqual({
      event: 'finding.needs_review',
      org_id: 'default',
      resource_hash: hash,
      rule_id: 'TF-GEN-SECRET-PLAINTEXT',
      resource_address: expect.any(String),
      severity: 'HIGH',
      title: 't',
      namespaces: ['hook-auto'],
      trigger: 'auto',
      timestamp: expect.any(String),
    });
  });

  it('fires manually on PATCH to needs_review, unsigned without a secret, and never blocks the request', async () => {
    await server.api(PATH, { method: 'PUT', json: { url: receiver.url } });
    const [hash] = await analyseClientSide('hook-manual', 'terraform-showjson-drift', 'HIGH', 'TF-GEN-SECRET-BOOTSTRAP');
    receiver.skipAll();
    receiver.hold(true); // the receiver accepts the request and never answers
    const res = await server.api(`/findings/${hash}/TF-GEN-SECRET-BOOTSTRAP`, { method: 'PATCH', json: { status: 'needs_review' } });
    expect(res.status).toBe(200);
    const hook = await receiver.next();
    expect(hook.headers['x-service-signature']).toBeUndefined();
    expect(JSON.parse(hook.raw)).toMatchObject({ trigger: 'manual', rule_id: 'TF-GEN-SECRET-BOOTSTRAP', resource_hash: hash });
    // While that delivery hangs, the server answers other requests.
    expect((await server.api('/findings?status=needs_review')).status).toBe(200);
    receiver.hold(false);
    receiver.release();
  });

  it('an unreachable or disabled target never fails the request', async () => {
    const hashes = await analyseClientSide('hook-down', 'checkov-gcp-modules', 'HIGH', 'TF-GEN-INGRESS-WORLD-OPEN');
    expect(hashes.length).toBeGreaterThan(1);
    const patch = (hash: string) => server.api(`/findings/${hash}/TF-GEN-INGRESS-WORLD-OPEN`, { method: 'PATCH', json: { status: 'needs_review' } });
    await server.api(PATH, { method: 'PUT', json: { url: 'http://127.0.0.1:1/unreachable' } });
    expect((await patch(hashes[0])).status).toBe(200);
    receiver.skipAll();
    await server.api(PATH, { method: 'PUT', json: { url: receiver.url, enabled: false } });
    expect((await patch(hashes[0])).status).toBe(200);
    await server.api(PATH, { method: 'PUT', json: { url: receiver.url } });
    expect((await patch(hashes[1])).status).toBe(200);
    // The disabled config sent nothing: the first delivery is the one made after re-enabling.
    const hook = await receiver.next();
    expect(JSON.parse(hook.raw)).toMatchObject({ trigger: 'manual', resource_hash: hashes[1] });
  });
});
