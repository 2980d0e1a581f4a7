import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureFor } from '../../engine/src/notify/signed-delivery';
import { fireNeedsReview } from '../../engine/src/notify/review-webhook';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { startTestServer, type TestServer } from '../helpers/test-server';

const CHANNELS = '/orgs/default/notifications/channels';
let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // The receiver is on loopback: reachable only through the operator's allowlist (here its
  // `notifications.egress.allowlist` alias), exactly as a real deployment would allow it.
  server = await startTestServer({ overrides: { notifications: { max_channels_per_org: 3, egress: { allowlist: ['127.0.0.1'] } } } });
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

async function create(body: Record<string, unknown>) {
  return server.api(CHANNELS, { method: 'POST', json: body });
}

describe('notification channels', () => {
  it('lists the event catalogue to any member', async () => {
    const viewer = await roleHeaders(server, 'viewer');
    expect((await server.api('/notifications/events', { headers: viewer })).status).toBe(403);
    const member = await roleHeaders(server, 'member');
    const res = await server.api('/notifications/events', { headers: member });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { name: 'pr.gate_blocked', description: expect.any(String), default_on: true },
      { name: 'finding.needs_review', description: expect.any(String), default_on: true },
    ]);
  });

  it('creates, reads, updates and deletes a channel; the URL and secret are write-only', async () => {
    const res = await create({ label: 'Security hooks', kind: 'webhook', target_url: receiver.url, secret: 's3cret-value', events: ['finding.needs_review'] });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain('s3cret-value');
    expect(text).not.toContain(receiver.url);
    const channel = JSON.parse(text) as Record<string, any>;
    expect(channel).toEqual({
      channel_id: expect.any(String),
      label: 'Security hooks',
      kind: 'webhook',
      target_url_hint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/.{0,4}…$/),
      has_secret: true,
      events: ['finding.needs_review'],
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      last_delivery: null,
    });
    const path = `${CHANNELS}/${channel.channel_id}`;
    expect((await server.api(path)).status).toBe(200);
    const patched = (await (await server.api(path, { method: 'PATCH', json: { label: 'Renamed', clear_secret: true } })).json()) as Record<string, any>;
    expect(patched).toMatchObject({ label: 'Renamed', has_secret: false, target_url_hint: channel.target_url_hint });
    const list = (await (await server.api(CHANNELS)).json()) as Record<string, any>[];
    expect(list.map((c) => c.channel_id)).toContain(channel.channel_id);
    expect((await server.api(path, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(path)).status).toBe(404);
    expect((await server.api(path, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses bad bodies (422), unknown events, refused URLs naming the rule and the setting, other roles and orgs', async () => {
    for (const body of [
      {},
      { label: '', kind: 'chat', target_url: receiver.url },
      { label: 'x'.repeat(81), kind: 'chat', target_url: receiver.url },
      { label: 'a', kind: 'email', target_url: receiver.url },
    ]) {
      expect((await create(body)).status).toBe(422);
    }
    const unknown = await create({ label: 'a', kind: 'chat', target_url: receiver.url, events: ['no.such.event'] });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { detail: string }).detail).toContain('no.such.event');
    expect((await create({ label: 'a', kind: 'chat', target_url: receiver.url, secret: 'x' })).status).toBe(422);
    for (const [url, rule] of [
      ['http://169.254.169.254/latest', /link-local/],
      ['http://10.0.0.8/hook', /private/],
      ['http://[::1]:9/x', /loopback/],
      ['file:///etc/passwd', /only http/],
    ] as const) {
      const res = await create({ label: 'a', kind: 'webhook', target_url: url });
      expect(res.status).toBe(422);
      const { detail } = (await res.json()) as { detail: string };
      expect(detail).toMatch(rule);
      if (!/only http/.test(detail)) expect(detail).toContain('egress.allowlist');
    }
    const member = await roleHeaders(server, 'member');
    expect((await server.api(CHANNELS, { headers: member })).status).toBe(403);
    const other = await otherOrg(server);
    expect((await server.api(`/orgs/${other.orgId}/notifications/channels`)).status).toBe(404);
    const mine = (await (await create({ label: 'mine', kind: 'chat', target_url: receiver.url })).json()) as { channel_id: string };
    expect((await server.api(`/orgs/${other.orgId}/notifications/channels/${mine.channel_id}`, { headers: other.headers })).status).toBe(404);
    await server.api(`${CHANNELS}/${mine.channel_id}`, { method: 'DELETE' });
  });

  it('the test call delivers a signed webhook, ignoring enabled, and stores last_delivery', async () => {
    const channel = (await (await create({ label: 'Signed', kind: 'webhook', target_url: receiver.url, secret: 'hook-secret', enabled: false })).json()) as {
      channel_id: string;
    };
    receiver.skipAll();
    const res = await server.api(`${CHANNELS}/${channel.channel_id}/test`, { method: 'POST' });
    expect(await res.json()).toEqual({ ok: true, status_code: 204, error: null });
    const hook = await receiver.next();
    expect(hook.headers['x-service-signature']).toBe(signatureFor('hook-secret', hook.raw));
    expect(JSON.parse(hook.raw)).toMatchObject({ event: 'test', org_id: 'default' });
    const stored = (await (await server.api(`${CHANNELS}/${channel.channel_id}`)).json()) as Record<string, any>;
    expect(stored.last_delivery).toMatchObject({ ok: true, status_code: 204, error: null });
    await server.api(`${CHANNELS}/${channel.channel_id}`, { method: 'DELETE' });
  });

  it('a stored URL that now resolves to a refused address is not contacted: status_code null', async () => {
    const channel = (await (await create({ label: 'Later', kind: 'chat', target_url: receiver.url })).json()) as { channel_id: string };
    // Stored before the operator removed the allowlist entry (or rebinding): delivery re-checks.
    const { engine } = server.services;
    const before = receiver.received.length;
    const strict = { ...engine, egress: { allowlist: [] } };
    const { testChannel } = await import('../../engine/src/notify/channel-service');
    const outcome = await testChannel(strict, 'default', channel.channel_id);
    expect(outcome).toMatchObject({ ok: false, status_code: null, error: expect.stringContaining('loopback') });
    expect(receiver.received.length).toBe(before);
    await server.api(`${CHANNELS}/${channel.channel_id}`, { method: 'DELETE' });
  });

  it('finding.needs_review reaches subscribed, enabled chat channels as a Slack-compatible message', async () => {
    const chat = (await (await create({ label: 'Chat', kind: 'chat', target_url: receiver.url, events: ['finding.needs_review'] })).json()) as {
      channel_id: string;
    };
    const off = (await (
      await create({ label: 'Off', kind: 'webhook', target_url: receiver.url, events: ['finding.needs_review'], enabled: false })
    ).json()) as { channel_id: string };
    receiver.skipAll();
    const before = receiver.received.length;
    const finding = {
      org_id: 'default',
      resource_hash: 'h'.repeat(64),
      rule_id: 'AWS-S3-001',
      resource_address: 'aws_s3_bucket.logs',
      severity: 'HIGH' as const,
      title: 'Bucket is public',
      status: 'needs_review' as const,
      first_seen: '',
      last_seen: '',
      occurrence_count: 1,
      note: null,
      updated_by: null,
      updated_at: null,
      confidence: 'LOW' as const,
    };
    await fireNeedsReview(server.services.engine, 'default', finding as never, 'manual');
    expect(receiver.received.length).toBe(before + 1);
    const body = JSON.parse((await receiver.next()).raw) as { text: string; blocks: unknown[] };
    expect(body.text).toContain('Bucket is public');
    expect(Array.isArray(body.blocks)).toBe(true);
    // The channel quota (3 here) answers 409.
    await create({ label: 'Third', kind: 'chat', target_url: receiver.url });
    expect((await create({ label: 'Fourth', kind: 'chat', target_url: receiver.url })).status).toBe(409);
    for (const id of [chat.channel_id, off.channel_id]) await server.api(`${CHANNELS}/${id}`, { method: 'DELETE' });
  });
});
